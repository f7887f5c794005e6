/**
 * In-run reconnects (engine.md §2.5): the 2/4/8/16/30 s ladder announced on request_end, attempt numbers,
 * the `[turn_retried]` resend (tools never re-run), exhaustion texts, auth and permanent failures never
 * retried, abort during backoff, and "retry now".
 */
import { assertStreamDiscipline } from '../../helpers/stream-discipline';
import type { ApproveFn } from '../../../src/core/interfaces';
import { textStream, thinkingStream, toolCallStream, turn } from '../../fakes/scripted-llm';
import { collect, FakeClock, ofType, payload, rig, TempDirs, user } from './helpers';

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());
const allow: ApproveFn = async () => 'allow';
const ends = (msgs: import('../../../src/core/omnimessage/types').OmniMessage[]) => ofType(msgs, 'request_end').map((m) => payload(m));
const lastAbort = (msgs: import('../../../src/core/omnimessage/types').OmniMessage[]) => {
  const m = msgs.at(-1)!;
  expect(m.type === 'event_msg' && m.payload.type).toBe('abort');
  return payload<{ reason: string }>(m).reason;
};

describe('reconnect', () => {
  test('the ladder waits 2,4,8,16,30 s, announced as retry_in_ms with 1-based attempts; success after 5 retries', async () => {
    const r = await rig(dirs, { script: [1, 2, 3, 4, 5].map(() => turn.fail('timeout', 'ECONNRESET')).concat([turn.text('finally')]) });
    const msgs = await collect(r.engine.run([user('go')]));
    expect(r.clock.sleeps).toEqual([2000, 4000, 8000, 16000, 30000]);
    expect(ends(msgs)).toEqual([
      { type: 'request_end', status: 'timeout', error_message: 'ECONNRESET', attempt: 1, retry_in_ms: 2000 },
      { type: 'request_end', status: 'timeout', error_message: 'ECONNRESET', attempt: 2, retry_in_ms: 4000 },
      { type: 'request_end', status: 'timeout', error_message: 'ECONNRESET', attempt: 3, retry_in_ms: 8000 },
      { type: 'request_end', status: 'timeout', error_message: 'ECONNRESET', attempt: 4, retry_in_ms: 16000 },
      { type: 'request_end', status: 'timeout', error_message: 'ECONNRESET', attempt: 5, retry_in_ms: 30000 },
      { type: 'request_end', status: 'completed', attempt: 6 },
    ]);
    expect(ofType(msgs, 'abort')).toHaveLength(0);
    expect(r.models.requests).toHaveLength(6);
  });

  test.each([
    ['malformed', undefined, 'malformed response failed after 5 retries'],
    ['failed', 'HTTP 400 nonsense', 'llm request failed after 5 retries: HTTP 400 nonsense'],
    ['timeout', 'idle timeout', 'reconnect failed after 5 retries'],
  ] as const)('exhausting the ladder on %s ends with the exact abort text', async (status, msg, reason) => {
    const r = await rig(dirs, { script: [0, 1, 2, 3, 4, 5].map(() => turn.fail(status, msg)) });
    const msgs = await collect(r.engine.run([user('go')]));
    expect(r.models.requests).toHaveLength(6);
    expect(lastAbort(msgs)).toBe(reason);
    const last = ends(msgs).at(-1)!;
    expect(last.attempt).toBe(6);
    expect(last).not.toHaveProperty('retry_in_ms');
    expect(r.clock.sleeps).toHaveLength(5);
  });

  test('auth is never retried; neither is a permanent failure', async () => {
    const r = await rig(dirs, { script: [turn.fail('auth', '401 invalid api key'), turn.fail('failed', 'fast mode unsupported', [], true)] });
    const a = await collect(r.engine.run([user('go')]));
    expect(lastAbort(a)).toBe('llm request error: 401 invalid api key');
    expect(ends(a)).toEqual([{ type: 'request_end', status: 'auth', error_message: '401 invalid api key', attempt: 1 }]);
    const p = await collect(r.engine.run([user('again')]));
    expect(lastAbort(p)).toBe('llm request error: fast mode unsupported');
    expect(r.models.requests).toHaveLength(2);
    expect(r.clock.sleeps).toEqual([]);
  });

  test('the resend is the same input plus one [turn_retried] transcript of every failed attempt; tools never re-run', async () => {
    const failedTurn = { ...turn.fail('timeout', 'cut'), messages: [...thinkingStream('plan'), ...textStream('I will look'), ...toolCallStream('read', 'c1', { p: 'a' })] };
    const r = await rig(dirs, { script: [failedTurn, turn.fail('malformed', undefined, textStream('again')), turn.text('done')], tools: { read: { chunks: ['file body'] } } });
    const msgs = await collect(r.engine.run([user('go')], { approve: allow }));
    assertStreamDiscipline(msgs);
    expect(r.env.calls).toHaveLength(1);
    const [first, second, third] = r.models.requests.map((q) => q.newMessages);
    expect(first.map((m) => payload(m).text)).toEqual(['go']);
    expect(second[0]).toEqual(first[0]);
    expect(payload(second[1]).text).toBe(
      '[turn_retried]\n[thinking]\nplan\n[/thinking]\n[text]\nI will look\n[/text]\n' +
        '[tool_call name="read" id="c1"]\n{"p":"a"}\n[/tool_call]\n' +
        '[tool_call_output id="c1" status="completed"]\nfile body\n[/tool_call_output]\n[/turn_retried]',
    );
    expect(third).toHaveLength(2);
    expect(payload(third[1]).text).toContain('[text]\nagain\n[/text]\n[/turn_retried]');
    expect(payload(third[1]).text).toContain('[tool_call name="read" id="c1"]');
    expect(r.models.violations).toEqual([]);
  });

  test('an abort during the backoff ends the run with "aborted during reconnect backoff" and keeps the resend as carry-over', async () => {
    const clock = new FakeClock('manual');
    const ac = new AbortController();
    const r = await rig(dirs, { clock, script: [turn.fail('timeout', 'x', textStream('half')), turn.text('ok')] });
    const run = collect(r.engine.run([user('go')], { signal: ac.signal }));
    await clock.sleeping();
    ac.abort();
    const msgs = await run;
    expect(lastAbort(msgs)).toBe('aborted during reconnect backoff');
    await collect(r.engine.run([user('next')]));
    const resent = r.models.requests[1].newMessages.map((m) => payload(m).text);
    expect(resent).toEqual(['go', '[turn_retried]\n[text]\nhalf\n[/text]\n[/turn_retried]', 'next']);
  });

  test('skipReconnectWait retries at once without spending an extra attempt', async () => {
    const clock = new FakeClock('manual');
    const r = await rig(dirs, { clock, script: [turn.fail('timeout'), turn.fail('timeout'), turn.text('ok')] });
    expect(r.engine.skipReconnectWait()).toBe(false);
    const run = collect(r.engine.run([user('go')]));
    await clock.sleeping();
    expect(r.engine.skipReconnectWait()).toBe(true);
    await clock.sleeping();
    clock.release();
    const msgs = await run;
    expect(ends(msgs).map((e) => e.attempt)).toEqual([1, 2, 3]);
    expect(clock.sleeps).toEqual([2000, 4000]);
  });
});
