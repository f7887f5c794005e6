/**
 * Session runtime guarantees (gateway.md §3, §5–§7): steering and queuing on a busy session, Stop,
 * approval timeout, restart recovery (expired cards + Continue), dedupe of redelivered events, DM pairing,
 * and binding → session resume across a gateway restart.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PlatformError } from '../../../src/adapters/contract/errors';
import { openSqliteStore } from '../../../src/gateway/store';
import { FakeOpenAIServer, stream, textChunks, finishChunk, usageChunk, turn, turnChunks } from '../../fakes/openai-server';
import { FakeChatAdapter } from './fake-chat-adapter';
import { startHarness, type Harness } from './harness';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const call = (id: string, cmd: string) => ({ id, name: 'exec_command', arguments: JSON.stringify({ description: `Run ${cmd}`, cmd }) });
/** A slow answer: `n` chunks, `ms` apart. */
const slow = (text: string, n: number, ms: number) => stream([...textChunks(text, { size: Math.ceil(text.length / n) }), finishChunk('stop'), usageChunk({ prompt_tokens: 5, completion_tokens: 5 })], { chunkDelayMs: ms });

describe('busy sessions', () => {
  it('steers a message sent while a Task runs into it (👀), and the model sees it on the next request', async () => {
    const chat = new FakeChatAdapter();
    h = await startHarness({ extra: () => [{ adapter: chat }], env: { PENGUIN_ALLOW_USERS: 'telegram:42' } });
    const user = { id: '42', name: 'ann' };
    h.model.enqueue(stream(turnChunks({ text: 'Working on it.', toolCalls: [{ id: 'r', name: 'read_file', arguments: JSON.stringify({ file_path: 'notes.txt' }) }] }), { chunkDelayMs: 40 }));
    h.model.enqueue(turn({ text: 'Done, and I saw your note.' }));
    await chat.inject(chat.dm(user, 'start something', '1'));
    // Steering goes into a run that is under way: the model is already streaming its first answer.
    await h.waitFor('the model streaming', () => h!.model.requests.length === 1);
    await chat.inject(chat.dm(user, 'also check B', '2'));
    await h.waitFor('final', () => chat.finalsIn('42').find((t) => t.includes('Done, and I saw your note.')));
    expect(chat.reactions).toEqual([{ messageId: '2', emoji: '👀' }]);
    const second = JSON.stringify(h.model.requests[1].body.messages);
    expect(second).toContain('[user_steering]\\nalso check B\\n[/user_steering]');
  });

  it('queues a message that arrives when steering is closed and runs it right after', async () => {
    const chat = new FakeChatAdapter();
    h = await startHarness({ extra: () => [{ adapter: chat }], env: { PENGUIN_ALLOW_USERS: 'telegram:42' } });
    const user = { id: '42' };
    h.model.enqueue(slow('first answer ', 4, 50));
    h.model.enqueue(turn({ text: 'second answer' }));
    await chat.inject(chat.dm(user, 'one', '1'));
    await h.waitFor('running', () => h!.gateway.manager.runningCount === 1);
    // Steering is drained at input assembly; a Task whose last turn is streaming cannot take it and queues it.
    await chat.inject(chat.dm(user, 'two', '2'));
    await h.waitFor('second final', () => chat.finalsIn('42').find((t) => t.includes('second answer')));
    expect(h.model.requests.filter((r) => r.body.tools?.length)).toHaveLength(2);
    expect(chat.finalsIn('42').some((t) => t.includes('first answer'))).toBe(true);
  });
});

describe('stop', () => {
  it('/stop denies the pending approval first, then aborts, and the reply says why', async () => {
    const chat = new FakeChatAdapter();
    h = await startHarness({ extra: () => [{ adapter: chat }], env: { PENGUIN_ALLOW_USERS: 'telegram:42' } });
    const user = { id: '42' };
    h.model.enqueue(turn({ toolCalls: [call('c1', 'echo never')] }));
    await chat.inject(chat.dm(user, 'go', '1'));
    const card = await h.waitFor('card', () => chat.posted.find((p) => p.content.buttons?.some((b) => b.label === 'Allow')));
    await chat.inject(chat.dm(user, '/stop', '2'));
    await h.waitFor('aborted reply', () => chat.textsIn('42').find((t) => t.includes('aborted')));
    const approvals = await h.gateway.store.listApprovals({});
    expect(approvals.map((a) => a.state)).toEqual(['cancelled']);
    expect(h.gateway.manager.runningCount).toBe(0);
    await h.waitFor('card edited', () => (card.content.buttons ?? []).length === 0);
    expect(card.content.text).toMatch(/Expired\*\* \(aborted by user\)/);
  });

  it('the Stop button works for the requester and is refused to others', async () => {
    const chat = new FakeChatAdapter();
    h = await startHarness({ extra: () => [{ adapter: chat }], env: { PENGUIN_ALLOW_USERS: 'telegram:42,telegram:7' } });
    h.model.enqueue(slow('a long answer that takes a while ', 20, 100));
    await chat.inject(chat.dm({ id: '42' }, 'go', '1'));
    const live = await h.waitFor('live reply with Stop', () => chat.posted.find((p) => p.content.buttons?.some((b) => b.label === 'Stop')));
    const stop = live.content.buttons!.find((b) => b.label === 'Stop')!;
    const refused = await chat.click({ id: '7' }, '42', live.id, stop.payload, 'cb1');
    expect(refused.text).toMatch(/Only the person who started/);
    expect(h.gateway.manager.runningCount).toBe(1);
    await chat.click({ id: '42' }, '42', live.id, stop.payload, 'cb2');
    await h.waitFor('aborted', () => live.content.text.includes('aborted'));
    expect(live.content.buttons ?? []).toEqual([]);
  });
});

describe('approval timeout', () => {
  it('answers deny after the timeout and marks the card expired', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pg-cfg-'));
    const file = join(dir, 'gateway.yaml');
    await writeFile(file, 'approvals:\n  timeout_ms: 300\n');
    try {
      h = await startHarness({ configFile: file });
      h.model.enqueue(turn({ toolCalls: [call('c1', 'echo late')] }));
      h.model.enqueue(turn({ text: 'No answer, so I did not run it.' }));
      await h.say('t1', 'go');
      const card = await h.waitFor('card', () => h!.botMessages('t1').find((m) => m.buttons.some((b) => b.label === 'Allow')));
      await h.waitFor('final', () => h!.botMessages('t1').find((m) => m.final && m.text.includes('did not run it')));
      expect((await h.gateway.store.listApprovals({})).map((a) => a.state)).toEqual(['expired']);
      expect(h.model.requests[1].body.messages.find((m: { role: string }) => m.role === 'tool').content).toBe('Tool call denied by user.');
      expect(h.botMessages('t1').find((m) => m.id === card.id)).toMatchObject({ text: expect.stringMatching(/^⌛ \*\*Expired\*\*/), buttons: [] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('restarts', () => {
  it('resumes the bound session in a new gateway on the same PENGUIN_HOME', async () => {
    const home = await mkdtemp(join(tmpdir(), 'pg-home-'));
    const model = new FakeOpenAIServer({ apiKey: 'sk-test', untooled: turn({ text: 'Title' }) });
    await model.start();
    try {
      model.enqueue(turn({ text: 'Nice to meet you, Ann.' }));
      h = await startHarness({ home, model });
      await h.say('r1', 'I am Ann');
      await h.waitFor('first final', () => h!.botMessages('r1').find((m) => m.final));
      const first = (await h.gateway.store.listSessions({}))[0].session_id;
      await h.close();

      model.enqueue(turn({ text: 'You are Ann.' }));
      h = await startHarness({ home, model });
      await h.say('r1', 'who am I?');
      await h.waitFor('second final', () => h!.botMessages('r1').find((m) => m.final && m.text.includes('You are Ann.')));
      const sessions = await h.gateway.store.listSessions({});
      expect(sessions.map((s) => s.session_id)).toEqual([first]);
      const roles = model.requests.filter((r) => r.body.tools?.length).at(-1)!.body.messages.map((m: { role: string }) => m.role);
      expect(roles).toEqual(['system', 'user', 'assistant', 'user']);
    } finally {
      await h?.close();
      h = undefined;
      await model.stop();
      await rm(home, { recursive: true, force: true });
    }
  });

  it('expires cards of Tasks that died and offers Continue on interrupted replies', async () => {
    const home = await mkdtemp(join(tmpdir(), 'pg-home-'));
    const model = new FakeOpenAIServer({ apiKey: 'sk-test', untooled: turn({ text: 'Title' }) });
    await model.start();
    try {
      model.enqueue(turn({ text: 'Hello.' }));
      h = await startHarness({ home, model });
      await h.say('k1', 'hi');
      await h.waitFor('final', () => h!.botMessages('k1').find((m) => m.final));
      const sid = (await h.gateway.store.listSessions({}))[0].session_id;
      await h.close();
      h = undefined;
      // What a process killed mid-Task leaves behind: a pending approval with its card and an open live reply.
      const store = openSqliteStore(join(home, 'data', 'gateway.db'));
      const a = await store.createApproval({ session_id: sid, tool_call_id: 'x', tool_name: 'exec_command', requester: 'web:admin', expires_at: Date.now() + 60_000 });
      await store.setApprovalCard(a.id, { platform: 'web', chat: 'web:k1', message_id: 'm-old' });
      await store.createDelivery({ platform: 'web', chat: 'web:k1', purpose: 'live', session_id: sid, task_id: 'tdead', platform_message_id: 'm-old2', state: 'sent' });
      await store.close();

      model.enqueue(turn({ text: 'Continuing from where I was.' }));
      h = await startHarness({ home, model });
      expect((await h.gateway.store.getApproval(a.id))?.state).toBe('expired');
      const offer = await h.waitFor('continue offer', () => h!.botMessages('k1').find((m) => m.buttons.some((b) => b.label === 'Continue')));
      expect(offer.text).toMatch(/restarted/);
      expect(h.botMessages('k1').some((m) => /Expired\*\* \(gateway restarted\)/.test(m.text))).toBe(true);
      await h.web.click('k1', offer.id, offer.buttons[0].payload, { id: 'admin' });
      await h.waitFor('continued', () => h!.botMessages('k1').find((m) => m.final && m.text.includes('Continuing from where I was.')));
      expect((await h.gateway.store.listSessions({})).map((s) => s.session_id)).toEqual([sid]);
    } finally {
      await h?.close();
      h = undefined;
      await model.stop();
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe('inbound', () => {
  it('shows "typing" once for a quick answer: the inbound handler sends it, the Task only renews it', async () => {
    const chat = new FakeChatAdapter();
    h = await startHarness({ extra: () => [{ adapter: chat }], env: { PENGUIN_ALLOW_USERS: 'telegram:42' } });
    h.model.enqueue(turn({ text: 'quick' }));
    await chat.inject(chat.dm({ id: '42' }, 'hi', 'q1'));
    await h.waitFor('final', () => chat.finalsIn('42').find((t) => t.includes('quick')));
    expect(chat.typings).toEqual(['telegram:42:-']);
  });

  it('marks the session when the platform refuses the conversation (bot blocked), and clears it once a reply gets through', async () => {
    const chat = new FakeChatAdapter();
    h = await startHarness({ extra: () => [{ adapter: chat }], env: { PENGUIN_ALLOW_USERS: 'telegram:42' } });
    chat.failWith = new PlatformError('telegram', { kind: 'surface', reason: 'blocked' }, 'Forbidden: bot was blocked by the user');
    h.model.enqueue(turn({ text: 'you will not see this' }));
    await chat.inject(chat.dm({ id: '42' }, 'hello', 'b1'));
    const marked = await h.waitFor('session marked', async () => (await h!.gateway.store.listSessions({}))[0]?.platform_problem ?? undefined);
    expect(marked).toBe('blocked: Forbidden: bot was blocked by the user');
    chat.failWith = undefined;
    h.model.enqueue(turn({ text: 'welcome back' }));
    await chat.inject(chat.dm({ id: '42' }, 'unblocked', 'b2'));
    await h.waitFor('reply', () => chat.finalsIn('42').find((t) => t.includes('welcome back')));
    await h.waitFor('cleared', async () => (await h!.gateway.store.listSessions({}))[0].platform_problem === null);
  });

  it('acts once on a redelivered event', async () => {
    const chat = new FakeChatAdapter();
    h = await startHarness({ extra: () => [{ adapter: chat }], env: { PENGUIN_ALLOW_USERS: 'telegram:42' } });
    h.model.enqueue(turn({ text: 'once' }));
    const m = chat.dm({ id: '42' }, 'hello', 'update-1');
    await chat.inject(m);
    await chat.inject(m);
    await h.waitFor('final', () => chat.finalsIn('42').find((t) => t.includes('once')));
    expect(h.model.requests.filter((r) => r.body.tools?.length)).toHaveLength(1);
  });

  it('pairs an unknown DM user: a code, operator approval via the admin API, then the message is answered', async () => {
    const chat = new FakeChatAdapter();
    h = await startHarness({ extra: () => [{ adapter: chat }] });
    await chat.inject(chat.dm({ id: '99', name: 'zed' }, 'hi there', 'u1'));
    const codeText = await h.waitFor('pairing code', () => chat.textsIn('99').find((t) => t.includes('pairing code')));
    const code = /\*\*([A-Z0-9]+)\*\*/.exec(codeText)![1];
    expect(h.model.requests).toHaveLength(0);
    const pending = await h.api('/api/pairing?state=pending');
    expect(pending.body.pairings?.[0] ?? pending.body.requests?.[0]).toMatchObject({ code, platform: 'telegram', user_id: '99' });
    expect((await h.api(`/api/pairing/${code}/approve`, { method: 'POST' })).status).toBe(200);
    await h.waitFor('approved notice', () => chat.textsIn('99').find((t) => t.includes('approved')));
    h.model.enqueue(turn({ text: 'Welcome, zed.' }));
    await chat.inject(chat.dm({ id: '99', name: 'zed' }, 'hi again', 'u2'));
    await h.waitFor('answer', () => chat.textsIn('99').find((t) => t.includes('Welcome, zed.')));
  });

  it('answers /status, /mode and /new', async () => {
    const chat = new FakeChatAdapter();
    h = await startHarness({ extra: () => [{ adapter: chat }], env: { PENGUIN_ALLOW_USERS: 'telegram:42' } });
    h.model.enqueue(turn({ text: 'hi' }));
    await chat.inject(chat.dm({ id: '42' }, 'hello', 'e1'));
    await h.waitFor('final', () => chat.finalsIn('42').find((t) => t.includes('hi')));
    await chat.inject(chat.dm({ id: '42' }, '/mode always-ask', 'e2'));
    await h.waitFor('mode set', () => chat.textsIn('42').find((t) => t.includes('Approval mode for this conversation: always-ask')));
    await chat.inject(chat.dm({ id: '42' }, '/mode sometimes', 'e3'));
    await h.waitFor('mode refused', () => chat.textsIn('42').find((t) => t.includes('Unknown mode "sometimes"')));
    await chat.inject(chat.dm({ id: '42' }, '/status', 'e4'));
    await h.waitFor('status', () => chat.textsIn('42').find((t) => t.includes('mode: always-ask')));
    const before = (await h.gateway.store.listSessions({}))[0].session_id;
    await chat.inject(chat.dm({ id: '42' }, '/new', 'e5'));
    h.model.enqueue(turn({ text: 'fresh' }));
    await chat.inject(chat.dm({ id: '42' }, 'again', 'e6'));
    await h.waitFor('fresh', () => chat.textsIn('42').find((t) => t.includes('fresh')));
    const sessions = await h.gateway.store.listSessions({});
    expect(sessions).toHaveLength(2);
    expect(sessions.map((s) => s.session_id)).toContain(before);
    expect(await h.gateway.store.resolveBinding('telegram:42:-')).not.toBe(before);
  });
});
