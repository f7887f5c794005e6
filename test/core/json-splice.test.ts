/**
 * jsonPieces/chunksOf: JSON.stringify of plain objects, byte for byte, with keys' values handed over already
 * encoded (in their place, absent keys skipped as JSON skips them); attachJson/attachedJson carry a
 * property's JSON on its object without showing up in spreads or in JSON; chunksAfter is what a short
 * gathered write leaves.
 */
import fc from 'fast-check';
import { attachedJson, attachJson, chunksAfter, chunksOf, jsonPieces, sharedItemsJson } from '../../src/core/json-splice';

const utf8Of = (pieces: Parameters<typeof chunksOf>[0]): Buffer => Buffer.concat(chunksOf(pieces).chunks);

const same = (pieces: Parameters<typeof utf8Of>[0], value: unknown) => expect(utf8Of(pieces).toString('utf8')).toBe(JSON.stringify(value));

test('without given values it is JSON.stringify, keys whose values JSON skips left out', () => {
  const obj = { a: 1, skip: undefined, f: () => 1, b: 'é — "x"\n', c: [1, undefined, null], d: { e: true } };
  same(jsonPieces(obj, {}), obj);
  same(jsonPieces({}, {}), {});
});

test('a given value takes its key\'s place, and is not read from the object', () => {
  const obj = { first: 1, prompt: 'never read', last: 'z' };
  Object.defineProperty(obj, 'prompt', { get: () => { throw new Error('read'); }, enumerable: true });
  const pieces = jsonPieces(obj, { prompt: [Buffer.from('"given 😀"', 'utf8')] });
  same(pieces, { first: 1, prompt: 'given 😀', last: 'z' });
});

test('given values at the start, the end and nested, for any JSON object', () => {
  fc.assert(
    fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }), fc.nat(), fc.jsonValue(), (obj, pick, inner) => {
      const keys = Object.keys(obj);
      const key = keys[pick % keys.length]!;
      const nested = { outer: 1, [key]: inner };
      const given = { [key]: jsonPieces(nested, { [key]: [JSON.stringify(inner)] }) };
      same(jsonPieces(obj, given), { ...obj, [key]: nested });
    }),
  );
});

test('attached JSON rides on its object, out of spreads and JSON', () => {
  const obj = attachJson({ text: 'hi' }, 'text', () => [Buffer.from('"hi"')]);
  expect(utf8Of(attachedJson(obj)!.text!()).toString()).toBe('"hi"');
  expect(JSON.stringify(obj)).toBe('{"text":"hi"}');
  expect(attachedJson({ ...obj })).toBeUndefined();
  expect(attachedJson('text')).toBeUndefined();
  expect(attachedJson(null)).toBeUndefined();
});

test('a shared list is JSON.stringify of the array', () => {
  const a = { name: 'a', text: 'é — 😀' };
  const b = { name: 'b', list: [1, null] };
  expect(utf8Of(sharedItemsJson([a, b, a])).toString('utf8')).toBe(JSON.stringify([a, b, a]));
  expect(utf8Of(sharedItemsJson([])).toString('utf8')).toBe('[]');
});

test('a list seen before comes back as one buffer, the same one each time; another list is its own JSON', () => {
  const a = { name: 'a', text: 'é — 😀' };
  const b = { name: 'b', list: [1, null] };
  const c = { name: 'c' };
  sharedItemsJson([a, b]);
  const again = sharedItemsJson([a, b]);
  expect(again).toHaveLength(1);
  expect(sharedItemsJson([a, b])[0]).toBe(again[0]);
  expect(utf8Of(again).toString('utf8')).toBe(JSON.stringify([a, b]));
  // Same first item, other list: encoded as itself (and remembered in place of the first).
  expect(utf8Of(sharedItemsJson([a, c])).toString('utf8')).toBe(JSON.stringify([a, c]));
  expect(utf8Of(sharedItemsJson([a])).toString('utf8')).toBe(JSON.stringify([a]));
  expect(utf8Of(sharedItemsJson([a, b, c])).toString('utf8')).toBe(JSON.stringify([a, b, c]));
});

test('chunks are the pieces as bytes: large given bytes by reference, the small pieces between them joined', () => {
  const shared = Buffer.from(`"${'é — 😀'.repeat(1000)}"`, 'utf8');
  const small = Buffer.from('"tiny"', 'utf8');
  const pieces = ['{"a":', shared, ',"b":', small, ',"c":[', '', '1]}'];
  const { chunks, size } = chunksOf(pieces);
  expect(chunks).toHaveLength(3);
  expect(chunks[1]).toBe(shared);
  const text = `{"a":${shared.toString('utf8')},"b":"tiny","c":[1]}`;
  expect(size).toBe(Buffer.byteLength(text));
  expect(Buffer.concat(chunks).toString('utf8')).toBe(text);
  expect(chunksOf(['', Buffer.alloc(0)])).toEqual({ chunks: [], size: 0 });
});

test('what a short write leaves is the rest of the bytes, whatever chunk it ended in', () => {
  const chunks = [Buffer.from('abc'), Buffer.from('de'), Buffer.from('fghi')];
  const all = 'abcdefghi';
  for (let written = 0; written <= all.length; written++) expect(Buffer.concat(chunksAfter(chunks, written)).toString()).toBe(all.slice(written));
  expect(chunksAfter(chunks, 3)[0]).toBe(chunks[1]);
  expect(chunksAfter(chunks, 9)).toEqual([]);
});
