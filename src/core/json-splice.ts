/**
 * JSON of plain objects with some values given already encoded, for the texts written over and over (a
 * session's system prompt, the agent's tool definitions): `jsonPieces(obj, given)` is `JSON.stringify(obj)`
 * as pieces, each key of `given` taking its pieces in its place; `chunksOf(pieces)` gives them as UTF-8
 * chunks for one gathered write (writev), shared bytes by reference, so a 40 KB request or trace line that
 * carries the prompt costs no joined copy. An object may carry the JSON of one of its properties
 * (`attachJson`), read by `attachedJson`; a list of objects that many messages share (tool definitions) is
 * encoded once, as one buffer (`sharedItemsJson`). Escaping a 20 KB prompt
 * and encoding it as UTF-8 cost ~0.3 ms per request and per trace line.
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

/** Given bytes this large are written where they are; smaller pieces between them are joined into one chunk. */
const BY_REFERENCE = 4096;

/**
 * The pieces as UTF-8 chunks and their total size, for one gathered write: bytes of `BY_REFERENCE` or more
 * (a shared prompt's JSON) by reference, every run of smaller pieces between them joined (a chunk costs a
 * write call of its own in node:http, more than copying a few hundred bytes).
 */
export function chunksOf(pieces: readonly JsonPiece[]): { chunks: Uint8Array[]; size: number } {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let run: JsonPiece[] = [];
  let runBytes = 0;
  const join = (): void => {
    if (runBytes > 0) {
      const buf = Buffer.allocUnsafe(runBytes);
      let at = 0;
      for (const p of run) {
        if (typeof p === 'string') at += buf.write(p, at, 'utf8');
        else {
          buf.set(p, at);
          at += p.byteLength;
        }
      }
      chunks.push(buf);
    }
    run = [];
    runBytes = 0;
  };
  for (const p of pieces) {
    const bytes = typeof p === 'string' ? Buffer.byteLength(p, 'utf8') : p.byteLength;
    if (bytes === 0) continue;
    size += bytes;
    if (typeof p !== 'string' && bytes >= BY_REFERENCE) {
      join();
      chunks.push(p);
      continue;
    }
    run.push(p);
    runBytes += bytes;
  }
  join();
  return { chunks, size };
}

/** What is left of `chunks` once the first `written` bytes of them went out (a short gathered write). */
export function chunksAfter(chunks: readonly Uint8Array[], written: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let skip = written;
  for (const c of chunks) {
    if (skip >= c.byteLength) {
      skip -= c.byteLength;
      continue;
    }
    out.push(skip > 0 ? c.subarray(skip) : c);
    skip = 0;
  }
  return out;
}

/** Lists encoded, by their first item: the sessions of an agent offer the same tools, in the same order. */
const encodedLists = new WeakMap<object, { items: readonly object[]; json: Buffer }>();

const sameItems = (a: readonly object[], b: readonly object[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * `JSON.stringify(items)` as one buffer, made once per list (the same objects in the same order), so a
 * request or trace line carries it by reference. The objects must not change.
 */
export function sharedItemsJson(items: readonly object[]): JsonPiece[] {
  if (items.length === 0) return ['[]'];
  let known = encodedLists.get(items[0]!);
  if (!known || !sameItems(known.items, items)) {
    known = { items: [...items], json: Buffer.from(JSON.stringify(items), 'utf8') };
    encodedLists.set(items[0]!, known);
  }
  return [known.json];
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
