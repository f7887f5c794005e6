/**
 * A held prompt's token estimate is that of its whole text, however the prompt is split into the agent's
 * shared head and the session's own rest (non-ASCII characters and surrogate pairs included, a reference
 * prompt replaced by one unlike it), and its JSON is byte for byte `JSON.stringify` of that text, for
 * prompts held before and after the reference changed, and held from halves (a head shared as it is).
 */
import fc from 'fast-check';
import { PromptShare } from '../../../src/core/agent/prompt-share';
import { chunksOf } from '../../../src/core/json-splice';

const utf8Of = (pieces: Parameters<typeof chunksOf>[0]): Buffer => Buffer.concat(chunksOf(pieces).chunks);
import { estimateTextTokens } from '../../../src/core/omnimessage/tokens';

const piece = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', '—', 'é', '😀', '…'), maxLength: 80 });

test('tokens equals the estimate of text() for every prompt held', () => {
  fc.assert(
    fc.property(fc.string({ minLength: 300, maxLength: 2000 }), fc.array(piece, { minLength: 1, maxLength: 12 }), fc.boolean(), (head, rests, replace) => {
      const share = new PromptShare();
      const prompts = rests.map((r) => `${head}${r}`);
      if (replace) prompts.splice(prompts.length >> 1, 0, `something else entirely ${'z'.repeat(400)}`);
      for (const p of prompts) {
        const held = share.hold(p);
        expect(held.text()).toBe(p);
        expect(held.tokens).toBe(estimateTextTokens(p));
      }
    }),
  );
});

/** Characters JSON escapes or encodes in several bytes, halves of surrogate pairs among them. */
const jsonUnit = fc.constantFrom('a', ' ', '\n', '"', '\\', '\u0001', '\u2028', '—', 'é', '😀', '\ud83d', '\ude00');
const jsonPiece = fc.string({ unit: jsonUnit, maxLength: 40 });

test('json() is the UTF-8 of JSON.stringify(text()) for every prompt held', () => {
  fc.assert(
    fc.property(fc.string({ unit: jsonUnit, minLength: 300, maxLength: 1200 }), fc.array(jsonPiece, { minLength: 1, maxLength: 12 }), fc.boolean(), (head, rests, replace) => {
      const share = new PromptShare();
      const prompts = rests.map((r) => `${head}${r}`);
      if (replace) prompts.splice(prompts.length >> 1, 0, `something else entirely ${'z'.repeat(400)}`, ...rests.map((r) => `${head}x${r}`));
      const held = prompts.map((p) => share.hold(p));
      // Read after every prompt is held: the share's known head has moved on for the early ones.
      held.forEach((h, i) => expect(utf8Of(h.json()).equals(Buffer.from(JSON.stringify(prompts[i]), 'utf8'))).toBe(true));
    }),
  );
});

test('a prompt held as halves is the prompt held whole: text, tokens and JSON, mixed with whole ones', () => {
  fc.assert(
    fc.property(
      fc.array(fc.string({ unit: jsonUnit, minLength: 300, maxLength: 900 }), { minLength: 1, maxLength: 3 }),
      fc.array(fc.tuple(fc.nat(), jsonPiece, fc.boolean()), { minLength: 1, maxLength: 12 }),
      (heads, uses) => {
        const share = new PromptShare();
        const held = uses.map(([h, rest, whole]) => {
          const head = heads[h % heads.length]!;
          return { text: head + rest, held: whole ? share.hold(head + rest) : share.holdHalves({ head, rest }) };
        });
        for (const { text, held: x } of held) {
          expect(x.text()).toBe(text);
          expect(x.length).toBe(text.length);
          expect(x.tokens).toBe(estimateTextTokens(text));
          expect(utf8Of(x.json()).equals(Buffer.from(JSON.stringify(text), 'utf8'))).toBe(true);
        }
      },
    ),
  );
});

test('a surrogate pair at the point two prompts part is never cut in two', () => {
  const share = new PromptShare();
  const head = 'h'.repeat(400);
  share.hold(`${head}\ud83d\ude00 one`);
  const held = share.hold(`${head}\ud83d\ude01 two`);
  expect(held.text()).toBe(`${head}\ud83d\ude01 two`);
  expect(utf8Of(held.json()).toString('utf8')).toBe(JSON.stringify(`${head}😁 two`));
});
