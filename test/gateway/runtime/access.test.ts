/**
 * Who may reach and steer the agent (gateway.md §5–§6), in process with a recording adapter: DM and group
 * pairing answer a flood once per code, an approved group lets its members in, groups a route names are
 * trusted, `allowlist` refuses once; only approvers widen /mode (anyone may tighten it), the operator
 * widens through the admin API; "Allow for this session" covers only the Tasks of the user it was given
 * for; a stranger can neither /stop nor /new someone else's running Task.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finishChunk, stream, textChunks, turn, usageChunk } from '../../fakes/openai-server';
import { FakeChatAdapter } from './fake-chat-adapter';
import { startHarness, type Harness } from './harness';

let h: Harness | undefined;
let dir: string | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const GROUP = '-1001';
const groupTexts = (chat: FakeChatAdapter, id = GROUP) => chat.posted.filter((p) => p.chat === `telegram:${id}:-`).map((p) => p.content.text);
const exec = (id: string, cmd: string) => ({ id, name: 'exec_command', arguments: JSON.stringify({ description: `run ${cmd}`, cmd }) });
const slow = (text: string) => stream([...textChunks(text, { size: 4 }), finishChunk('stop'), usageChunk({ prompt_tokens: 5, completion_tokens: 5 })], { chunkDelayMs: 60 });

async function configFile(yaml: string): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'pg-access-'));
  const f = join(dir, 'gateway.yaml');
  await writeFile(f, yaml);
  return f;
}

async function clickCard(chat: FakeChatAdapter, user: { id: string }, label: string, eventId: string, chatId = GROUP) {
  const card = await h!.waitFor(`card for ${eventId}`, () => chat.posted.find((p) => p.content.buttons?.some((b) => b.label === label)));
  const button = card.content.buttons!.find((b) => b.label === label)!;
  return chat.click(user, chatId, card.id, button.payload, eventId);
}

describe('pairing and group policy', () => {
  it('answers a DM flood from an unknown user with one pairing code', async () => {
    const chat = new FakeChatAdapter();
    h = await startHarness({ extra: () => [{ adapter: chat }] });
    for (let i = 0; i < 5; i++) await chat.inject(chat.dm({ id: '99' }, `hello ${i}`, `d${i}`));
    expect(chat.textsIn('99').filter((t) => t.includes('pairing code'))).toHaveLength(1);
    expect(h.model.requests).toHaveLength(0);
  });

  it('pairs an unknown group once; after approval its members are answered', async () => {
    const chat = new FakeChatAdapter();
    h = await startHarness({ extra: () => [{ adapter: chat }] });
    for (let i = 0; i < 3; i++) await chat.inject(chat.group(GROUP, { id: String(70 + i) }, 'hi bot', `g${i}`));
    expect(groupTexts(chat).filter((t) => t.includes('pairing code'))).toHaveLength(1);
    const [req] = (await h.api('/api/pairing?state=pending')).body.requests;
    expect(req).toMatchObject({ kind: 'group', user_id: GROUP });
    expect((await h.api(`/api/pairing/${req.code}/approve`, { method: 'POST' })).status).toBe(200);
    await h.waitFor('group notice', () => groupTexts(chat).find((t) => t.includes('This group is approved')));
    h.model.enqueue(turn({ text: 'Hello, group.' }));
    await chat.inject(chat.group(GROUP, { id: '71' }, 'hi again', 'g9'));
    await h.waitFor('answer', () => groupTexts(chat).find((t) => t.includes('Hello, group.')));
    expect((await h.api('/api/allowlist')).body.users).toEqual([expect.objectContaining({ kind: 'group', user_id: GROUP })]);
  });

  it('trusts a group a route names, and refuses others once under allowlist', async () => {
    const chat = new FakeChatAdapter();
    const f = await configFile(`telegram: {group_policy: allowlist}\nroutes:\n  - {match: {platform: telegram, chat: "${GROUP}"}}\n`);
    h = await startHarness({ extra: () => [{ adapter: chat }], configFile: f });
    h.model.enqueue(turn({ text: 'Routed group here.' }));
    await chat.inject(chat.group(GROUP, { id: '5' }, 'hello', 'a1'));
    await h.waitFor('answer', () => groupTexts(chat).find((t) => t.includes('Routed group here.')));
    await chat.inject(chat.group('-2002', { id: '5' }, 'hello', 'a2'));
    await chat.inject(chat.group('-2002', { id: '6' }, 'hello?', 'a3'));
    expect(groupTexts(chat, '-2002')).toEqual(['⛔ This bot is not enabled for this group.']);
  });
});

describe('who may widen permissions', () => {
  it('without approvers, chat users may only make the mode stricter; the operator widens it via the API', async () => {
    const chat = new FakeChatAdapter();
    h = await startHarness({ extra: () => [{ adapter: chat }], env: { PENGUIN_ALLOW_USERS: 'telegram:42' } });
    await chat.inject(chat.dm({ id: '42' }, '/mode allow-all', 'm1'));
    await h.waitFor('refusal', () => chat.textsIn('42').find((t) => t.includes('is for the operator')));
    await chat.inject(chat.dm({ id: '42' }, '/mode deny-all', 'm2'));
    await h.waitFor('stricter', () => chat.textsIn('42').find((t) => t.includes('Approval mode for this conversation: deny-all')));
    await chat.inject(chat.dm({ id: '42' }, '/mode read-only', 'm3'));
    await h.waitFor('refusal 2', () => chat.textsIn('42').filter((t) => t.includes('laxer')).length === 2);
    const [session] = (await h.api('/api/sessions')).body.sessions;
    expect(session.approval_mode).toBe('deny-all');

    const patched = await h.api(`/api/sessions/${session.session_id}`, { method: 'PATCH', body: { approval_mode: 'allow-all' } });
    expect(patched).toMatchObject({ status: 200, body: { session: { approval_mode: 'allow-all' } } });
    expect((await h.api(`/api/sessions/${session.session_id}`, { method: 'PATCH', body: { approval_mode: 'sometimes' } })).status).toBe(400);
    h.model.enqueue(turn({ toolCalls: [exec('c1', 'echo widened-by-operator')] }), turn({ text: 'ran it' }));
    await chat.inject(chat.dm({ id: '42' }, 'run it', 'm4'));
    await h.waitFor('ran without a card', () => chat.textsIn('42').find((t) => t.includes('ran it')));
    expect(chat.posted.some((p) => p.content.buttons?.some((b) => b.label === 'Allow'))).toBe(false);
  });

  it('a route approver may widen the mode in chat', async () => {
    const chat = new FakeChatAdapter();
    const f = await configFile('default_route: {approvers: ["telegram:1"]}\n');
    h = await startHarness({ extra: () => [{ adapter: chat }], env: { PENGUIN_ALLOW_USERS: 'telegram:42' }, configFile: f });
    await chat.inject(chat.group(GROUP, { id: '1' }, '/mode allow-all', 'x1'));
    await h.waitFor('widened', () => groupTexts(chat).find((t) => t.includes('Approval mode for this conversation: allow-all')));
  });

  it('"Allow for this session" covers the Tasks of the user it was given for, never a stranger\'s', async () => {
    const chat = new FakeChatAdapter();
    h = await startHarness({ extra: () => [{ adapter: chat }], env: { PENGUIN_GROUP_POLICY: 'open' } });
    const ann = { id: '10', name: 'ann' };
    const eve = { id: '66', name: 'eve' };
    h.model.enqueue(turn({ toolCalls: [exec('a1', 'echo one')] }), turn({ text: 'first done' }));
    await chat.inject(chat.group(GROUP, ann, 'run one', 's1'));
    await clickCard(chat, ann, 'Allow for this session', 'k1');
    await h.waitFor('first', () => groupTexts(chat).find((t) => t.includes('first done')));

    h.model.enqueue(turn({ toolCalls: [exec('a2', 'echo two')] }), turn({ text: 'second done' }));
    await chat.inject(chat.group(GROUP, ann, 'run two', 's2'));
    await h.waitFor('second', () => groupTexts(chat).find((t) => t.includes('second done')));
    const cards = () => chat.posted.filter((p) => p.content.text.includes('```sh'));
    expect(cards()).toHaveLength(1);

    h.model.enqueue(turn({ toolCalls: [exec('e1', 'echo pwned')] }), turn({ text: 'stranger done' }));
    await chat.inject(chat.group(GROUP, eve, 'run mine', 's3'));
    await h.waitFor('a card for the stranger', () => cards().length === 2);
    const denied = await clickCard(chat, eve, 'Deny', 'k2');
    expect(denied.text).toBeUndefined();
    await h.waitFor('stranger finished', () => groupTexts(chat).find((t) => t.includes('stranger done')));
  });

  it("a stranger can neither /stop nor /new someone else's running Task", async () => {
    const chat = new FakeChatAdapter();
    h = await startHarness({ extra: () => [{ adapter: chat }], env: { PENGUIN_GROUP_POLICY: 'open' } });
    h.model.enqueue(slow('a long answer that takes a little while to stream out'));
    await chat.inject(chat.group(GROUP, { id: '10' }, 'go', 't1'));
    await h.waitFor('running', () => h!.gateway.manager.runningCount === 1);
    await chat.inject(chat.group(GROUP, { id: '66' }, '/stop', 't2'));
    await chat.inject(chat.group(GROUP, { id: '66' }, '/new', 't3'));
    expect(groupTexts(chat).filter((t) => t.includes('only they or an approver'))).toHaveLength(2);
    expect(h.gateway.manager.runningCount).toBe(1);
    await chat.inject(chat.group(GROUP, { id: '10' }, '/stop', 't4'));
    await h.waitFor('stopped', () => h!.gateway.manager.runningCount === 0);
  });
});

describe('follow-ups in a thread', () => {
  it('a follow-up without a mention continues a conversation that has a session, and is ignored where none is', async () => {
    const chat = new FakeChatAdapter();
    h = await startHarness({ extra: () => [{ adapter: chat }], env: { PENGUIN_GROUP_POLICY: 'open' } });
    const followUp = (text: string, id: string, chatId = GROUP) => ({ ...chat.group(chatId, { id: '10' }, text, id), mentionsBot: false, followUp: true });
    await chat.inject(followUp('nobody asked me', 'f0', '-3003'));
    expect(groupTexts(chat, '-3003')).toEqual([]);
    h.model.enqueue(turn({ text: 'first answer' }), turn({ text: 'followed up' }));
    await chat.inject(chat.group(GROUP, { id: '10' }, 'hello bot', 'f1'));
    await h.waitFor('first', () => chat.finalsIn(GROUP).find((t) => t.includes('first answer')));
    await chat.inject(followUp('and one more thing', 'f2'));
    await h.waitFor('follow-up answered', () => chat.finalsIn(GROUP).find((t) => t.includes('followed up')));
    const plain = { ...chat.group(GROUP, { id: '10' }, 'not for you', 'f3'), mentionsBot: false };
    await chat.inject(plain);
    expect(h.model.requests.filter((r) => r.body.tools?.length)).toHaveLength(2);
  });
});

describe('small boundaries', () => {
  it('answers an oversized playground message with 413, not 500', async () => {
    h = await startHarness();
    const r = await h.api('/api/web/conversations/big/messages', { body: { text: 'x'.repeat(300 * 1024) } });
    expect(r).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large' } } });
  });
});
