/**
 * Buttons and assistant threads against the fake Slack: a click is acked at once (before the gateway
 * finishes with it) and reaches the gateway as an ActionEvent with the button's payload; `answer()` with a
 * text shows an ephemeral notice to the clicker only, once. Opening an assistant thread offers suggested
 * prompts and hands the thread's opening to the gateway; messages in it are DMs; setTitle titles assistant
 * threads only.
 */
import type { ActionEvent } from '../../../src/adapters/contract/messages';
import { encodeActionPayload } from '../../../src/adapters/contract/action-payload';
import { RecordingHandler, startSlackHarness, type SlackHarness } from './harness';

let h: SlackHarness;
afterEach(() => h.cleanup());

const content = (text: string, buttons?: { label: string; payload: string }[]) => ({ text, header: '', answer: text, answerOffset: 0, plain: false, final: true, part: 0, ...(buttons ? { buttons } : {}) });

it('acks a click before the gateway is done, hands over the payload, and answers the clicker alone', async () => {
  h = await startSlackHarness({ rateLimits: false });
  const adapter = await h.httpAdapter();
  const rec = new RecordingHandler();
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  rec.onActionHook = async () => held;
  await adapter.start(rec);
  const root = h.server.mention(h.server.defaultChannel, h.server.defaultUser, 'card please');
  await rec.waitFor(() => rec.messages[0], 'mention');
  const payload = encodeActionPayload({ kind: 'approval', approvalId: 'ap1', verb: 'allow' });
  const posted = await adapter.post(rec.messages[0].thread, content('Approve?', [{ label: 'Allow', payload }]));
  const bob = h.server.addUser({ id: 'U00000BOB1', name: 'bob' });
  h.server.store.channel({ id: h.server.defaultChannel, members: [bob] });

  const click = h.server.clickButton(posted.messageId, 'Allow', bob);
  expect((await click.done).state).toBe('acked');
  release();
  const action: ActionEvent = await rec.waitFor(() => rec.actions[0], 'action');
  expect(action).toMatchObject({ platform: 'slack', payload, user: { id: bob }, message: { messageId: posted.messageId }, thread: { threadTs: root.ts } });
  await action.answer({ text: 'This approval is not yours to decide.', alert: true });
  await action.answer({ text: 'twice' });
  expect(h.server.ephemeralFor(bob)).toEqual([expect.objectContaining({ text: 'This approval is not yours to decide.', thread_ts: root.ts })]);
  expect(h.server.ephemeralFor(h.server.defaultUser)).toEqual([]);
  await action.answer();
});

it('offers prompts in a new assistant thread, hands on its opening, takes its messages as DMs and titles it', async () => {
  h = await startSlackHarness({ rateLimits: false });
  const adapter = await h.httpAdapter();
  const rec = new RecordingHandler();
  await adapter.start(rec);
  const t = h.server.assistantThreadStarted(h.server.defaultUser);
  await h.server.waitFor(() => h.server.assistantThread(t.channel, t.ts)?.suggestedPrompts, 5000, 'prompts');
  expect(h.server.assistantThread(t.channel, t.ts)!.suggestedPrompts!.prompts.map((p) => p.title)).toEqual(['What can you do?', 'Look around the workspace', 'Start fresh']);
  // the instance that saw the opening is the one that knows the thread is an assistant's: it should own it
  expect(await rec.waitFor(() => rec.opened[0], 'opening')).toMatchObject({ platform: 'slack', channel: t.channel, threadTs: t.ts });

  h.server.message(t.channel, h.server.defaultUser, 'help me plan', { thread_ts: t.ts });
  const msg = await rec.waitFor(() => rec.messages[0], 'assistant message');
  expect(msg).toMatchObject({ isDM: true, mentionsBot: true, text: 'help me plan', thread: { channel: t.channel, threadTs: t.ts } });
  await adapter.setTitle(msg.thread, 'Release planning');
  expect(h.server.assistantThread(t.channel, t.ts)!.title).toBe('Release planning');

  const root = h.server.mention(h.server.defaultChannel, h.server.defaultUser, 'not an assistant thread');
  const other = await rec.waitFor(() => rec.messages[1], 'mention');
  await adapter.setTitle(other.thread, 'ignored');
  expect(h.server.callsTo('assistant.threads.setTitle')).toHaveLength(1);
  expect(root.ts).toBe(other.thread.platform === 'slack' ? other.thread.threadTs : '');
});
