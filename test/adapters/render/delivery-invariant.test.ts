/**
 * The delivery invariant (gateway.md §4), as a property: for random streams of text, thinking and tool
 * calls, random chunking and arrival times, random platform limits (forcing splits), post+edit or native
 * streaming (drafts / append streams), and random injected
 * 429s, lost responses ("not modified" on the retry) and transient errors, the answer parts of the final
 * messages, concatenated in order, equal the complete assistant text — nothing lost, nothing duplicated,
 * order kept — and each message's text really embeds its answer part.
 */
import fc from 'fast-check';
import * as b from '../../../src/core/omnimessage/builders';
import type { OmniMessage } from '../../../src/core/omnimessage/types';
import { DISCORD_LIMITS, SLACK_LIMITS, TELEGRAM_LIMITS, type PlatformLimits } from '../../../src/adapters/contract/limits';
import type { RateScope } from '../../../src/adapters/contract/rate';
import { discordFormatter, slackFormatter, telegramFormatter, type Formatter } from '../../../src/adapters/format/formatter';
import { renderLiveReply } from '../../../src/adapters/render/live-reply';
import { answerText, emptyLiveView, foldLiveView } from '../../../src/adapters/render/live-view';
import { MessageWriter } from '../../../src/adapters/render/message-writer';
import { RateGovernor } from '../../../src/adapters/render/rate-governor';
import { FakeClock } from '../../helpers/fake-clock';
import { assertStreamDiscipline } from '../../helpers/stream-discipline';
import { embeddedAnswer, err, FakeSurface, type Fault } from '../helpers/fake-surface';
import { textSegment, thinkingSegment, toolCallSegment, toolOutput, usage } from '../helpers/streams';

type Step =
  | { kind: 'text'; chunks: string[] }
  | { kind: 'thinking'; chunks: string[] }
  | { kind: 'tool'; name: string; description: string; ok: boolean };

const piece = fc.constantFrom('word ', 'Other ', 'x', '\n', '\n\n', '```py\n', '```\n', '**bold** ', '*', '`', '_', '😀', '日本', '&<>', '- item\n', '# Head\n', '> quote\n', '| a | b |\n|---|---|\n| 1 | 2 |\n', 'https://example.com/a_b ', '@everyone ');
const text = fc.array(piece, { minLength: 0, maxLength: 60 }).map((p) => p.join(''));
/** Random chunking of a text into deltas (possibly mid-character-pair-safe: cut on code points). */
const chunked = text.chain((t) => {
  const cps = [...t];
  return fc.array(fc.integer({ min: 0, max: cps.length }), { maxLength: 12 }).map((cuts) => {
    const at = [...new Set(cuts)].sort((x, y) => x - y);
    const out: string[] = [];
    let prev = 0;
    for (const c of [...at, cps.length]) {
      out.push(cps.slice(prev, c).join(''));
      prev = c;
    }
    return out.filter((s) => s !== '');
  });
});
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: chunked.map((chunks) => ({ kind: 'text' as const, chunks })) },
  { weight: 1, arbitrary: chunked.map((chunks) => ({ kind: 'thinking' as const, chunks })) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tool' as const), name: fc.constantFrom('exec_command', 'read_file', 'edit_file'), description: fc.string({ maxLength: 30 }), ok: fc.boolean() }) },
);

/** One fault per surface call, never more than 3 in a row (a final always succeeds within 5 tries). */
const faultKinds = fc.array(fc.constantFrom('none', 'none', 'none', 'rate', 'transient', 'lost'), { minLength: 1, maxLength: 200 }).map((ks) => {
  let run = 0;
  return ks.map((k) => {
    run = k === 'none' ? 0 : run + 1;
    return run > 3 ? 'none' : k;
  });
});

const platform = fc.constantFrom<[PlatformLimits, Formatter]>([SLACK_LIMITS, slackFormatter], [DISCORD_LIMITS, discordFormatter], [TELEGRAM_LIMITS, telegramFormatter]);

function buildStream(steps: Step[]): { msgs: OmniMessage[]; expected: string } {
  const msgs: OmniMessage[] = [b.requestBegin()];
  const texts: string[] = [];
  let id = 0;
  for (const s of steps) {
    if (s.kind === 'text') {
      msgs.push(...textSegment(s.chunks));
      texts.push(s.chunks.join(''));
    } else if (s.kind === 'thinking') {
      msgs.push(...thinkingSegment(s.chunks));
    } else {
      const callId = `call_${++id}`;
      msgs.push(...toolCallSegment(callId, s.name, { description: s.description, cmd: 'true' }), b.tokenUsage(usage(50), usage(50)), b.requestEnd('completed'));
      msgs.push(b.approvalDecision('allow', callId), ...toolOutput(callId, s.ok ? 'ok' : 'boom\n[exit code: 1]', s.ok ? 'completed' : 'failed'), b.requestBegin());
    }
  }
  msgs.push(b.tokenUsage(usage(10), usage(10)), b.requestEnd('completed'));
  return { msgs, expected: texts.filter((t) => t.trim() !== '').join('\n\n') };
}

describe('delivery invariant', () => {
  beforeAll(() => b.setMessageClock(() => new Date(Date.UTC(2026, 0, 1))));
  afterAll(() => b.setMessageClock());

  it('final messages carry exactly the assistant text, in order, under throttling, splitting, 429s and retries', async () => {
    const seen = { split: 0, failedCalls: 0, notModified: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 14 }),
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 50 }),
        faultKinds,
        platform,
        fc.integer({ min: 160, max: 900 }),
        fc.boolean(),
        fc.constantFrom<Array<'draft' | 'append' | undefined>>(undefined, undefined, 'draft', 'append'),
        async (steps, gaps, faults, [base, formatter], target, isDM, native) => {
          const { msgs, expected } = buildStream(steps);
          assertStreamDiscipline(msgs);
          const clock = new FakeClock();
          const governor = new RateGovernor(clock);
          const chat: RateScope = { key: 'chat', limit: { count: 1, perMs: 1000, burst: 3 }, level: 'chat' };
          let n = 0;
          const surface = new FakeSurface({
            clock,
            rejectIdentical: true,
            ...(native ? { native } : {}),
            scopes: () => [chat],
            faults: (op): Fault | undefined => {
              const k = faults[n++] ?? 'none';
              if (k === 'rate') return { error: err.rateLimited(500 + (n % 7) * 1500) };
              if (k === 'transient') return { error: err.transient() };
              // the platform applied the edit but the answer was lost; the retry will hear "not modified"
              if (k === 'lost' && op === 'edit') return { error: err.transient(), afterApply: true };
              return undefined;
            },
          });
          const limits: PlatformLimits = { ...base, splitTarget: target, maxChars: target + 200 };
          const measure = (md: string) => formatter.length(formatter.render(md));
          const writer = new MessageWriter({ surface, clock, governor, limits, isDM, measure, headerReserve: 120 });

          let view = foldLiveView(emptyLiveView(), { kind: 'task_started', at: clock.now() });
          const feed = new Promise<void>((resolve) => {
            let t = 0;
            msgs.forEach((m, i) => {
              t += gaps[i % gaps.length];
              clock.setTimeout(() => {
                view = foldLiveView(view, m);
                writer.update(renderLiveReply(view, { stopPayload: 's:task1' }));
                if (i === msgs.length - 1) resolve();
              }, t);
            });
          });
          await clock.settle(feed, 3_600_000);
          view = foldLiveView(view, { kind: 'task_finished', at: clock.now() });
          expect(answerText(view)).toBe(expected);
          const result = await clock.settle(writer.finish(renderLiveReply(view)), 600_000);

          expect(result.ok).toBe(true);
          const visible = surface.visible();
          expect(visible.map((m) => m.content.answer).join('')).toBe(expected);
          expect(visible.map((m) => m.id)).toEqual(result.messageIds);
          for (const [k, m] of visible.entries()) {
            expect(m.content.part).toBe(k);
            expect(m.content.final).toBe(true);
            expect(embeddedAnswer(m.content)).toBe(m.content.answer);
            expect(m.content.buttons).toBeUndefined();
            if (k > 0) expect(m.content.header).toBe('');
          }
          expect(surface.maxInFlight).toBe(1);
          expect(clock.pending).toBe(0);
          if (visible.length > 1) seen.split++;
          seen.failedCalls += surface.calls.filter((c) => c.failed).length;
          seen.notModified += surface.calls.filter((c) => c.failed?.classification.kind === 'ignore').length;
        },
      ),
      { numRuns: 150, seed: 20260101 },
    );
    // the runs really exercised splitting, failures and "not modified" answers
    expect(seen.split).toBeGreaterThan(10);
    expect(seen.failedCalls).toBeGreaterThan(50);
    expect(seen.notModified).toBeGreaterThan(0);
  });
});
