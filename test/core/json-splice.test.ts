/**
 * jsonPieces/utf8Of: JSON.stringify of plain objects, byte for byte, with keys' values handed over already
 * encoded (in their place, absent keys skipped as JSON skips them); attachJson/attachedJson carry a
 * property's JSON on its object without showing up in spreads or in JSON.
 */
import fc from 'fast-check';
import { attachedJson, attachJson, jsonPieces, sharedItemsJson, utf8Of } from '../../src/core/json-splice';

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

test('joined buffers never overlap, small ones from node\'s pool and large ones alike', () => {
  const made: { buf: Buffer; text: string }[] = [];
  for (let i = 0; i < 3000; i++) {
    // Sizes from a few bytes to past 200 KB, multi-byte characters among them.
    const text = `${i}:${'é—'.repeat((i * 37) % 400)}${i % 500 === 0 ? 'x'.repeat(200_000) : ''}`;
    made.push({ buf: utf8Of([text.slice(0, 3), Buffer.from(text.slice(3), 'utf8')]), text });
  }
  for (const m of made) expect(m.buf.toString('utf8')).toBe(m.text);
});

test('shared items are JSON.stringify of the array, each object encoded once', () => {
  const a = { name: 'a', text: 'é — 😀' };
  const b = { name: 'b', list: [1, null] };
  expect(utf8Of(sharedItemsJson([a, b, a])).toString('utf8')).toBe(JSON.stringify([a, b, a]));
  expect(utf8Of(sharedItemsJson([])).toString('utf8')).toBe('[]');
});
