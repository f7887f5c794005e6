/**
 * Steering and background notices (engine.md §2.7, §2.8): steering joins the next input as one exact
 * `[user_steering]` block (+ images), keeps an ending Task going, is refused when idle and recallable
 * until delivered; notices join before steering while running, and while idle they queue, tell the host,
 * and are delivered (yielded + traced) with the next run's input.
 */
import { assertStreamDiscipline } from '../../helpers/stream-discipline';
import type { ApproveFn, BackgroundNotice } from '../../../src/core/interfaces';
import type { OmniMessage } from '../../../src/core/omnimessage/types';
import { turn } from '../../fakes/scripted-llm';
import { collect, ofType, payload, rig, TempDirs, user } from './helpers';

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());
const allow: ApproveFn = async () => 'allow';
const notice = (id: string, detail = 'all good'): BackgroundNotice => ({ kind: 'command', id, status: 'completed', label: 'npm test', detail });
const userTexts = (msgs: OmniMessage[]) => msgs.filter((m) => m.type === 'model_msg' && m.payload.type === 'text' && m.payload.role === 'user').map((m) => payload(m));

describe('steering', () => {
  test('steering sent while a tool runs joins the next input after the outputs, as exactly one [user_steering] block', async () => {
    let release!: () => void;
    const gate = new Promise<void>((res) => (release = res));
    const r = await rig(dirs, { script: [turn.tools([{ name: 'a', id: 'c1' }]), turn.text('ok')], tools: { a: { before: () => gate } } });
    let id: string | false = false;
    const msgs = await collect(r.engine.run([user('go')], { approve: allow }), (m) => {
      if (m.type === 'event_msg' && m.payload.type === 'approval_decision') {
        id = r.engine.steer('also check the README', ['data:image/png;base64,AAAA']);
        release();
      }
    });
    expect(id).toMatch(/^steer-/);
    assertStreamDiscipline(msgs);
    const second = r.models.requests[1].newMessages;
    expect(second.map((m) => payload(m).type)).toEqual(['tool_call_output', 'text', 'image_url']);
    expect(payload(second[1]).text).toBe('[user_steering]\nalso check the README\n[/user_steering]');
    // yielded and traced
    expect(userTexts(msgs).map((p) => p.text)).toEqual(['[user_steering]\nalso check the README\n[/user_steering]']);
    const trace = await r.trace();
    expect(trace.some((m) => m.type === 'model_msg' && m.payload.type === 'text' && m.payload.text.startsWith('[user_steering]'))).toBe(true);
  });

  test('steering keeps an ending Task going for one more turn; text-only models get image paths inside the block', async () => {
    const r = await rig(dirs, { engine: { vision: false }, script: [turn.text('first answer'), turn.text('second answer')] });
    const msgs = await collect(r.engine.run([user('go')]), (m) => {
      if (m.type === 'model_msg' && m.payload.type === 'text' && m.payload.text === 'first answer') r.engine.steer('and in French', ['/tmp/x.png']);
    });
    expect(r.models.requests).toHaveLength(2);
    expect(payload(r.models.requests[1].newMessages[0]).text).toBe('[user_steering]\nand in French\n[attached image: /tmp/x.png]\n[/user_steering]');
    expect(ofType(msgs, 'text').map((m) => payload(m).text)).toContain('second answer');
  });

  test('steer returns false when idle; unsteer recalls an undelivered entry; leftovers are discarded when the run exits', async () => {
    const r = await rig(dirs, { script: [turn.text('a'), turn.text('b')] });
    expect(r.engine.steer('hello')).toBe(false);
    let recalled = false;
    await collect(r.engine.run([user('go')]), (m) => {
      if (m.type === 'event_msg' && m.payload.type === 'request_begin') {
        const id = r.engine.steer('never mind');
        recalled = id !== false && r.engine.unsteer(id);
      }
    });
    expect(recalled).toBe(true);
    expect(r.models.requests).toHaveLength(1);
    expect(r.engine.unsteer('steer-00000000')).toBe(false);
    await collect(r.engine.run([user('again')]));
    expect(r.models.requests[1].newMessages.map((m) => payload(m).text)).toEqual(['again']);
  });

  test('steering offered once the last turn is over, while the run winds down, is refused rather than accepted and dropped', async () => {
    const script = () => [turn.text('done'), turn.text('answered the late steering')];
    const length = (await collect((await rig(dirs, { script: script() })).engine.run([user('go')]))).length;
    const r = await rig(dirs, { script: script() });
    const it = r.engine.run([user('go')])[Symbol.asyncIterator]();
    for (let i = 0; i < length; i++) expect((await it.next()).done).toBe(false);
    // The stream has given its last message; what is left is the run winding down (its trace flushed).
    const end = it.next();
    const offered = await new Promise<string | false>((res) => setImmediate(() => res(r.engine.steer('late'))));
    expect((await end).done).toBe(true);
    const delivered = r.models.requests.some((q) => q.newMessages.some((m) => String(payload(m).text ?? '').includes('late')));
    expect(offered === false || delivered).toBe(true);
    expect(offered).toBe(false);
  });
});

describe('background notices', () => {
  test('while running, a notice joins the next input before steering (a finishing Task gets one more turn)', async () => {
    const r = await rig(dirs, { script: [turn.text('done?'), turn.text('saw it')] });
    await collect(r.engine.run([user('go')]), (m) => {
      if (m.type === 'model_msg' && m.payload.type === 'text' && m.payload.role === 'assistant' && m.payload.text === 'done?') {
        r.engine.steer('thanks');
        r.env.notify(notice('proc-1234abcd', 'x'.repeat(5000) + 'END'));
      }
    });
    const input = r.models.requests[1].newMessages;
    expect(input.map((m) => payload(m).sender ?? 'user')).toEqual(['harness', 'user']);
    const text = payload(input[0]).text as string;
    expect(text.startsWith('[background_task_done]\nkind: command\nid: proc-1234abcd\nstatus: completed\ndetail: npm test\n\n')).toBe(true);
    expect(text.endsWith('xEND\n[/background_task_done]')).toBe(true);
    expect(text.length).toBeLessThan(4000 + 200);
  });

  test('while idle, notices queue, the host is told, and the next run yields, traces and appends them to its input', async () => {
    const r = await rig(dirs, { script: [turn.text('a'), turn.text('b')] });
    await collect(r.engine.run([user('first')]));
    const heard: BackgroundNotice[][] = [];
    r.engine.onIdleNotice((n) => heard.push(n));
    r.env.notify(notice('proc-00000001'));
    expect(heard).toHaveLength(1);
    expect(r.engine.queuedNotices).toBe(1);
    const msgs = await collect(r.engine.run([]));
    expect(userTexts(msgs)).toHaveLength(1);
    expect(userTexts(msgs)[0]).toMatchObject({ sender: 'harness' });
    expect(r.models.requests[1].newMessages).toHaveLength(1);
    const trace = await r.trace();
    expect(trace.filter((m) => m.type === 'model_msg' && m.payload.type === 'text' && m.payload.sender === 'harness')).toHaveLength(1);
    expect(r.engine.queuedNotices).toBe(0);
  });

  test('a run with no input and nothing queued sends no request', async () => {
    const r = await rig(dirs, { script: [turn.text('a')] });
    const msgs = await collect(r.engine.run([]));
    expect(msgs.map((m) => m.type !== 'session_meta' && m.payload.type)).toEqual(['tool_list_ready']);
    expect(r.models.requests).toHaveLength(0);
  });

  test('dispose unsubscribes from the Environment', async () => {
    const r = await rig(dirs);
    expect(r.env.subscribers).toBe(1);
    r.engine.dispose();
    expect(r.env.subscribers).toBe(0);
  });
});
