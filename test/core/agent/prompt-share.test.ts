/**
 * A held prompt's token estimate is that of its whole text, however the prompt is split into the agent's
 * shared head and the session's own rest (non-ASCII characters and surrogate pairs included, a reference
 * prompt replaced by one unlike it).
 */
import fc from 'fast-check';
import { PromptShare } from '../../../src/core/agent/prompt-share';
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
