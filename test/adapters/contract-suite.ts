/**
 * The ChannelAdapter contract suite: one parameterised set of jest tests every adapter runs against its own
 * fake platform (web in-process, Telegram against the fake Bot API; Slack and Discord against theirs).
 * post / edit / delete round trip; a message that is gone classifies as degrade; `classify` answers for any
 * thrown value without throwing; nothing but PlatformError leaves a call; stop() is idempotent; thread keys
 * round-trip and `place` answers for every thread; every RateOp has scopes; a long text splits within the
 * platform limit and its parts concatenate back to the input.
 */
import fc from 'fast-check';
import type { ChannelAdapter } from '../../src/adapters/contract/adapter';
import { systemClock } from '../../src/adapters/contract/clock';
import { isPlatformError } from '../../src/adapters/contract/errors';
import type { InboundHandler, MessageRef } from '../../src/adapters/contract/messages';
import type { RateOp } from '../../src/adapters/contract/rate';
import type { OutboundContent } from '../../src/adapters/contract/surface';
import { bindingKey, parseBindingKey, type ThreadRef } from '../../src/adapters/contract/thread-ref';
import { measureLength } from '../../src/adapters/contract/limits';
import { MessageWriter } from '../../src/adapters/render/message-writer';
import { RateGovernor } from '../../src/adapters/render/rate-governor';

export interface ContractWorld {
  /** A started adapter (the suite stops it at the end, twice). */
  adapter: ChannelAdapter;
  /** Threads the adapter can post into: at least a direct one; a group one where the platform has groups. */
  threads: ThreadRef[];
  /** The text a user sees for a message now (rendered), or undefined when it no longer exists. */
  shown(ref: MessageRef): Promise<string | undefined>;
  /** Deletes a message the way a user or admin would, behind the adapter's back. */
  removeBehindBack(ref: MessageRef): Promise<void>;
  close(): Promise<void>;
}

export const RATE_OPS: readonly RateOp[] = ['post', 'edit', 'delete', 'draft', 'stream_start', 'stream_append', 'stream_stop', 'typing', 'reaction', 'ephemeral'];

/** A thread of another platform: every adapter must refuse it with a PlatformError. */
const FOREIGN: Record<string, ThreadRef> = {
  telegram: { platform: 'web', conversation: 'elsewhere' },
  web: { platform: 'telegram', chat: '42', topic: null },
  slack: { platform: 'telegram', chat: '42', topic: null },
  discord: { platform: 'telegram', chat: '42', topic: null },
};

const content = (text: string, o: Partial<OutboundContent> = {}): OutboundContent => ({ text, header: '', answer: text, answerOffset: 0, plain: false, final: true, part: 0, ...o });

const silent: InboundHandler = { onMessage: async () => undefined, onAction: async () => undefined };

/** A long Markdown answer with paragraphs, lists and a code fence longer than any one message. */
function longAnswer(target: number): string {
  const para = (i: number) => `Paragraph ${i}: the quick brown fox jumps over the lazy dog, **again** and _again_ — 日本語 too.`;
  const parts: string[] = [];
  let i = 0;
  while (parts.join('\n\n').length < target * 1.4) parts.push(para(i++));
  const fence = ['```ts', ...Array.from({ length: Math.ceil(target / 40) }, (_, k) => `const line${k} = ${k} * 2; // a line of code`), '```'].join('\n');
  return [...parts, fence, '- one\n- two\n- three', ...parts.slice(0, 5)].join('\n\n');
}

async function expectPlatformError(what: string, call: () => unknown): Promise<void> {
  let thrown: unknown;
  try {
    await call();
  } catch (e) {
    thrown = e;
  }
  if (!isPlatformError(thrown)) throw new Error(`${what}: expected a PlatformError, got ${thrown === undefined ? 'no error' : String(thrown)}`);
}

export function runContractSuite(name: string, open: () => Promise<ContractWorld>): void {
  describe(`${name} adapter: the ChannelAdapter contract`, () => {
    let w: ContractWorld;
    beforeAll(async () => {
      w = await open();
    });
    afterAll(async () => {
      await w.adapter.stop();
      await w.adapter.stop();
      await w.close();
    });

    it('posts, edits and deletes, and the platform shows each step', async () => {
      for (const thread of w.threads) {
        const ref = await w.adapter.post(thread, content('first **version**'));
        expect(ref.thread).toEqual(thread);
        expect(await w.shown(ref)).toContain('first');
        await w.adapter.edit(ref, content('second version'));
        expect(await w.shown(ref)).toContain('second version');
        await w.adapter.delete(ref);
        expect(await w.shown(ref)).toBeUndefined();
      }
    });

    it('classifies editing a message that is gone as degrade (post anew)', async () => {
      const ref = await w.adapter.post(w.threads[0], content('soon gone'));
      await w.removeBehindBack(ref);
      let thrown: unknown;
      try {
        await w.adapter.edit(ref, content('too late'));
      } catch (e) {
        thrown = e;
      }
      expect(isPlatformError(thrown) && thrown.classification).toEqual({ kind: 'degrade', reason: 'gone' });
    });

    it('classify answers for any thrown value without throwing', () => {
      fc.assert(
        fc.property(fc.anything({ withNullPrototype: true, withBigInt: true, withMap: true, withSet: true }), (x) => {
          const e = w.adapter.classify(x);
          return isPlatformError(e) && ['retry', 'degrade', 'ignore', 'surface'].includes(e.classification.kind);
        }),
        { numRuns: 300 },
      );
      const again = w.adapter.classify(new Error('x'));
      expect(w.adapter.classify(again)).toBe(again);
    });

    it('lets nothing but PlatformError escape, even for a thread it cannot address', async () => {
      const foreign = FOREIGN[name];
      const ref = { thread: foreign, messageId: '1' };
      await expectPlatformError('post', () => w.adapter.post(foreign, content('x')));
      await expectPlatformError('edit', () => w.adapter.edit(ref, content('x')));
      await expectPlatformError('delete', () => w.adapter.delete(ref));
      await expectPlatformError('rateScopes', () => w.adapter.rateScopes(foreign, 'post'));
      if (w.adapter.typing) await expectPlatformError('typing', () => w.adapter.typing!(foreign));
      if (w.adapter.react) await expectPlatformError('react', () => w.adapter.react!(ref, '👀'));
      if (w.adapter.ephemeral) await expectPlatformError('ephemeral', () => w.adapter.ephemeral!(foreign, 'u', 'x'));
    });

    it('round-trips thread keys and places every thread it posts into', () => {
      for (const thread of w.threads) {
        expect(parseBindingKey(bindingKey(thread))).toEqual(thread);
        const place = w.adapter.place(thread);
        expect(place.platform).toBe(w.adapter.platform);
        expect(place.channel).not.toBe('');
        expect(place.workspaceKey).not.toBe('');
        if (place.direct) expect(place.group).toBeUndefined();
      }
      expect(w.threads.some((t) => w.adapter.place(t).direct)).toBe(true);
    });

    it('names rate scopes for every operation, broadest first, with valid limits', () => {
      for (const thread of w.threads) {
        for (const op of RATE_OPS) {
          const scopes = w.adapter.rateScopes(thread, op);
          expect(scopes.length).toBeGreaterThan(0);
          for (const s of scopes) {
            expect(s.key).toMatch(/\S/);
            expect(s.limit.count > 0 && s.limit.perMs > 0 && s.limit.burst >= 1).toBe(true);
          }
        }
      }
    });

    it('splits a long answer within the platform limit, never losing or repeating text', async () => {
      const last = new Map<string, OutboundContent>();
      const order: string[] = [];
      const a = w.adapter;
      const thread = w.threads[0];
      const writer = new MessageWriter({
        surface: {
          post: async (c) => {
            const ref = await a.post(thread, c);
            last.set(ref.messageId, c);
            order.push(ref.messageId);
            return ref.messageId;
          },
          edit: async (id, c) => {
            await a.edit({ thread, messageId: id }, c);
            last.set(id, c);
          },
          delete: async (id) => {
            await a.delete({ thread, messageId: id });
            last.delete(id);
            order.splice(order.indexOf(id), 1);
          },
          scopes: (op) => a.rateScopes(thread, op),
          ...(a.measure ? { measure: (md: string) => a.measure!(md) } : {}),
        },
        clock: systemClock,
        governor: new RateGovernor(systemClock),
        limits: a.limits,
        isDM: a.place(thread).direct,
      });
      const answer = longAnswer(a.limits.splitTarget);
      const result = await writer.finish({ header: '', answer });
      expect(result.ok).toBe(true);
      expect(order.length).toBeGreaterThan(1);
      const measure = a.measure ? (md: string) => a.measure!(md) : (md: string) => measureLength(md, a.limits.lengthUnit);
      for (const id of order) {
        const c = last.get(id)!;
        expect(measure(c.text)).toBeLessThanOrEqual(a.limits.maxChars);
        expect(c.text.slice(c.answerOffset, c.answerOffset + c.answer.length)).toBe(c.answer);
        expect(await w.shown({ thread, messageId: id })).toBeDefined();
      }
      expect(order.map((id) => last.get(id)!.answer).join('')).toBe(answer);
    }, 60_000);

    it('starts only once and stops idempotently', async () => {
      await expect(w.adapter.start(silent)).rejects.toBeDefined();
    });
  });
}
