/**
 * The source of a stand-in module (scripts/build-server.mjs, LAZY): it exports a Proxy that loads the
 * real module at its first use (reading, listing or testing a property) and then behaves as it does.
 * What CommonJS interop asks while the importer loads (`'default' in m`, `m.__esModule`) is answered from
 * `known`, the real module's answers read at build time, so loading the importer does not run the module.
 */
'use strict';

/**
 * @param {string} load a JavaScript expression whose value is the real module (e.g. `require("x")`), run once
 * @param {{ default: boolean, esModule: boolean }} known
 */
function lazyModuleSource(load, known) {
  return `let real;
const load = () => (real ??= ${load});
module.exports = new Proxy({}, {
  get: (_, k) => (k === '__esModule' && !real ? ${known.esModule === true} : load()[k]),
  has: (_, k) => (k === 'default' && !real ? ${known.default === true} : k in load()),
  ownKeys: () => Reflect.ownKeys(load()),
  getOwnPropertyDescriptor: (_, k) => {
    const d = Reflect.getOwnPropertyDescriptor(load(), k);
    return d && { ...d, configurable: true };
  },
});`;
}

/** The answers `lazyModuleSource` needs, from the real module: one whose exports are an object (a stand-in cannot be called). */
function knownOf(real) {
  if (real === null || typeof real !== 'object') throw new Error(`a lazy module's exports must be an object to stand in for, not ${real === null ? 'null' : typeof real}`);
  return { default: 'default' in real, esModule: real.__esModule === true };
}

module.exports = { lazyModuleSource, knownOf };
