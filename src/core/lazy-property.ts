/**
 * An enumerable property read through a function each time (JSON and spreads see the value), without
 * giving each object its own hidden class. V8 keeps an accessor in the object's hidden class, so a fresh
 * getter closure per object means a class, descriptors and an accessor pair per object, and turning an
 * existing data property into an accessor makes the object a hash table. Here every object shares one
 * getter per property name, which calls the object's own reader kept in a non-enumerable symbol slot.
 */

interface Shared {
  slot: symbol;
  get: (this: Record<symbol, () => unknown>) => unknown;
}

const shared = new Map<string, Shared>();

function sharedFor(key: string): Shared {
  let s = shared.get(key);
  if (!s) {
    const slot = Symbol(key);
    s = { slot, get: function (this: Record<symbol, () => unknown>) { return this[slot](); } };
    shared.set(key, s);
  }
  return s;
}

/** Adds `key` to `obj` (which must not have it yet), read through `read`. */
export function defineLazy<T extends object, K extends string, V>(obj: T, key: K, read: () => V): T & Record<K, V> {
  const s = sharedFor(key);
  Object.defineProperty(obj, s.slot, { value: read, enumerable: false, writable: false, configurable: true });
  Object.defineProperty(obj, key, { get: s.get, enumerable: true, configurable: true });
  return obj as T & Record<K, V>;
}

/** A copy of `obj` with `key` (in its place among the keys) read through `read` instead of stored. */
export function withLazy<T extends object, K extends keyof T & string>(obj: T, key: K, read: () => T[K]): T {
  const out = {} as Record<string, unknown>;
  const src = obj as Record<string, unknown>;
  for (const k of Object.keys(obj)) {
    if (k === key) defineLazy(out, key, read);
    else out[k] = src[k];
  }
  if (!(key in out)) defineLazy(out, key, read);
  return out as T;
}
