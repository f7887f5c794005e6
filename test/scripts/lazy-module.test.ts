/**
 * scripts/lazy-module.js, the stand-in a vendor bundle has for a module its SDK loads but may never use:
 * loading it and what CommonJS interop asks at load (`'default' in m`, `m.__esModule`) run nothing; the
 * first real use requires the module once, and from then on the stand-in reads, lists and tests as it does.
 */
const { lazyModuleSource, knownOf } = require('../../scripts/lazy-module.js') as {
  lazyModuleSource(load: string, known: { default: boolean; esModule: boolean }): string;
  knownOf(real: unknown): { default: boolean; esModule: boolean };
};

/** Evaluates a stand-in as CommonJS with a `require` that counts how often the real module is required. */
function standIn(real: Record<string, unknown>): { m: Record<string | symbol, unknown>; loads: () => number } {
  let loads = 0;
  const source = lazyModuleSource('require("the-real-one")', knownOf(real));
  const module = { exports: {} as Record<string | symbol, unknown> };
  const require = (id: string) => {
    if (id !== 'the-real-one') throw new Error(`unexpected require ${id}`);
    loads++;
    return real;
  };
  new Function('module', 'require', source)(module, require);
  return { m: module.exports, loads: () => loads };
}

// TypeScript's and node-fetch's interop helpers, as the bundled SDKs have them.
const interopDefault = (ex: any) => (ex && typeof ex === 'object' && 'default' in ex ? ex['default'] : ex);
const importStar = (mod: any) => {
  if (mod && mod.__esModule) return mod;
  const result: Record<string, unknown> = {};
  for (const k of Reflect.ownKeys(mod)) if (k !== 'default') result[k as string] = mod[k];
  result.default = mod;
  return result;
};

describe('lazy module stand-in', () => {
  it('answers the interop probes of a CommonJS module without requiring it', () => {
    const real = { URL: class {}, parseURL: () => 'parsed' };
    const { m, loads } = standIn(real);
    const viaInterop = interopDefault(m);
    expect('default' in m).toBe(false);
    expect(m.__esModule).toBe(false);
    expect(viaInterop).toBe(m);
    expect(loads()).toBe(0);
  });

  it('answers as an ES module compiled to CommonJS would, still without requiring it', () => {
    const { m, loads } = standIn({ __esModule: true, default: 'the default', named: 1 });
    expect('default' in m).toBe(true);
    expect(m.__esModule).toBe(true);
    expect(loads()).toBe(0);
    expect(m.default).toBe('the default');
    expect(loads()).toBe(1);
  });

  it('requires the real module once, at first use, then reads, tests and lists its properties', () => {
    class WebSocket {}
    const fetch = () => 'fetched';
    const real = { WebSocket, fetch, OPEN: 1 };
    const { m, loads } = standIn(real);
    expect(new (m.WebSocket as typeof WebSocket)()).toBeInstanceOf(WebSocket);
    expect((m.fetch as typeof fetch)()).toBe('fetched');
    expect('OPEN' in m).toBe(true);
    expect('CLOSED' in m).toBe(false);
    expect(Object.keys(m)).toEqual(['WebSocket', 'fetch', 'OPEN']);
    expect(importStar(m)).toEqual({ WebSocket, fetch, OPEN: 1, default: m });
    expect(loads()).toBe(1);
  });

  it('reads the interop answers from the real module, which must be an object', () => {
    expect(knownOf({ a: 1 })).toEqual({ default: false, esModule: false });
    expect(knownOf({ __esModule: true, default: 2 })).toEqual({ default: true, esModule: true });
    // a stand-in cannot be called: the build refuses a module whose exports are a function
    expect(() => knownOf(() => undefined)).toThrow(/must be an object.*not function/);
  });
});
