/**
 * JSON of plain objects with some values given already encoded, for the texts written over and over (a
 * session's system prompt, the agent's tool definitions): `jsonPieces(obj, given)` is `JSON.stringify(obj)`
 * as pieces, each key of `given` taking its pieces in its place; `utf8Of(pieces)` joins them as bytes.
 * An object may carry the JSON of one of its properties (`attachJson`), read by `attachedJson`; objects that
 * many messages share (tool definitions) are encoded once each (`sharedItemsJson`).
 * Escaping a 20 KB prompt and encoding it as UTF-8 cost ~0.3 ms per request and per trace line. (Joined
 * bytes are not cut from shared slabs: freeing a slab of glibc's mmap size raised its mmap threshold, and
 * 1,000 sessions after an exchange then held ~20 KB more each in the allocator's heap.)
 */

export type JsonPiece = string | Uint8Array;

/** `JSON.stringify(obj)` (a plain object without `toJSON`) as pieces, `given[key]` in place of a key's value. */
export function jsonPieces(obj: object, given: Record<string, readonly JsonPiece[]>): JsonPiece[] {
  const src = obj as Record<string, unknown>;
  const out: JsonPiece[] = [];
  let text = '{';
  let first = true;
  for (const k of Object.keys(src)) {
    const pieces = Object.prototype.hasOwnProperty.call(given, k) ? given[k] : undefined;
    const value = pieces ? undefined : JSON.stringify(src[k]);
    if (!pieces && value === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(k)}:`;
    first = false;
    if (value !== undefined) {
      text += value;
      continue;
    }
    out.push(text);
    out.push(...pieces!);
    text = '';
  }
  out.push(`${text}}`);
  return out;
}

/** The pieces as one UTF-8 buffer. */
export function utf8Of(pieces: readonly JsonPiece[]): Buffer {
  let size = 0;
  for (const p of pieces) size += typeof p === 'string' ? Buffer.byteLength(p, 'utf8') : p.byteLength;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const p of pieces) {
    if (typeof p === 'string') at += out.write(p, at, 'utf8');
    else {
      out.set(p, at);
      at += p.byteLength;
    }
  }
  return out;
}

const encodedItems = new WeakMap<object, Buffer>();

/** `JSON.stringify(items)` as pieces, each object encoded once for every message that carries it (it must not change). */
export function sharedItemsJson(items: readonly object[]): JsonPiece[] {
  const out: JsonPiece[] = ['['];
  items.forEach((item, i) => {
    let json = encodedItems.get(item);
    if (!json) {
      json = Buffer.from(JSON.stringify(item), 'utf8');
      encodedItems.set(item, json);
    }
    if (i > 0) out.push(',');
    out.push(json);
  });
  out.push(']');
  return out;
}

const ATTACHED = Symbol('attachedJson');

type Attached = Record<string, () => readonly JsonPiece[]>;

/** Lets `obj[key]`'s JSON (as pieces, quotes included) be read through `json` instead of escaping its value. */
export function attachJson<T extends object>(obj: T, key: string, json: () => readonly JsonPiece[]): T {
  const own = (obj as Record<symbol, Attached | undefined>)[ATTACHED];
  const next: Attached = { ...(own ?? {}), [key]: json };
  Object.defineProperty(obj, ATTACHED, { value: next, enumerable: false, writable: false, configurable: true });
  return obj;
}

/** The attached JSON readers of `obj`, if any. */
export function attachedJson(obj: unknown): Readonly<Attached> | undefined {
  return obj !== null && typeof obj === 'object' ? (obj as Record<symbol, Attached | undefined>)[ATTACHED] : undefined;
}
