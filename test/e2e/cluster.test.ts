/**
 * Several gateway instances on one PostgreSQL database and one data dir (issue 21), end to end: real gateway
 * processes `a` and `b` behind the fake load balancer, the fake Telegram in webhook mode and the fake model.
 * Conversations spread over both and are answered once; a button pressed through the instance that does not
 * own the chat resolves the approval; kill -9 of the owner mid-stream is finalised by the survivor within 30 s,
 * which answers the chat from then on; a schedule fires once. Skips when PostgreSQL is not installed.
 */
import type { MessageView } from '../fakes/telegram-store';
import { finishChunk, stream, textChunks, turn, usageChunk, type RecordedRequest } from '../fakes/openai-server';
import { openCluster, POSTGRES_SKIPPED, WEBHOOK_PATH, type ClusterOptions, type ClusterWorld } from './cluster-world';
import { assertGatewayBuilt } from './gateway-process';
import { mkdir } from 'node:fs/promises';
import { scheduleDir, scheduleId, until, writeScheduleFile } from './schedule-files';
import { ADMIN_TOKEN, buttonLabels, DM_USER, hasButton, isCard, isFinalReply, splitReply } from './telegram-world';

const BOT = '@fake_test_bot';
const GROUP = -1001234567890;
/** A dead instance's lease lapses after this; small so a takeover happens within seconds. */
const LEASE_MS = 3000;
const CLUSTER_CONFIG = { cluster: { lease_ms: LEASE_MS } };
const TAKEOVER_NOTE = '⚠️ interrupted: the gateway instance answering here stopped';

let w: ClusterWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

async function cluster(o: ClusterOptions = {}, start: 'all' | 'none' = 'all'): Promise<ClusterWorld> {
  w = await openCluster({ ...o, config: { ...CLUSTER_CONFIG, ...o.config } });
  if (start === 'all') await w.startAll();
  return w;
}

/** A model turn streamed in small pieces, `delayMs` apart. */
function slowTurn(text: string, delayMs: number, size = 8) {
  return stream([...textChunks(text, { size }), finishChunk('stop'), usageChunk({ prompt_tokens: 10, completion_tokens: 5 })], { chunkDelayMs: delayMs });
}

const tooled = (wd: ClusterWorld): RecordedRequest[] => wd.model.requests.filter((r) => r.body?.tools?.length);
const execCall = (id: string, cmd: string) => ({ id, name: 'exec_command', arguments: JSON.stringify({ cmd, description: 'print a marker' }) });

function waitForAnswer(wd: ClusterWorld, chat: number, answer: string, label: string, ms = 15_000): Promise<MessageView> {
  return wd.tg.waitFor(() => wd.tg.botMessages(chat).find((m) => isFinalReply(m) && splitReply(m.text ?? '').answer === answer), ms, label);
}

interface SessionRow {
  session_id: string;
  binding_key: string | null;
  owner_instance: string | null;
}

/** The session rows (through instance `via`'s admin API; the index is shared, so any instance will do). */
async function sessions(wd: ClusterWorld, via: string): Promise<SessionRow[]> {
  const r = await wd.admin(via, '/api/sessions?limit=100');
  expect(r.status).toBe(200);
  return r.body.sessions as SessionRow[];
}

/** The instance owning the Telegram chat's conversation, once one does. */
function ownerOf(wd: ClusterWorld, chat: number, via: string): Promise<string> {
  return until(`an owner of chat ${chat}`, async () => (await sessions(wd, via)).find((s) => s.binding_key?.startsWith(`telegram:${chat}:`))?.owner_instance ?? undefined);
}

/** Requests the balancer sent to the webhook route, by the instance that answered them. */
function webhookHits(wd: ClusterWorld): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of wd.lb.routed) {
    const id = wd.idOf(r.backend);
    if (id && r.path === WEBHOOK_PATH && r.status === 200) out[id] = (out[id] ?? 0) + 1;
  }
  return out;
}

beforeAll(() => assertGatewayBuilt());

const describeCluster = POSTGRES_SKIPPED ? describe.skip : describe;
const title = `gateway cluster on PostgreSQL (real processes)${POSTGRES_SKIPPED ? ` [skipped: ${POSTGRES_SKIPPED}]` : ''}`;

describeCluster(title, () => {
  it('one instance on PostgreSQL behind the load balancer answers a DM in webhook mode', async () => {
    // Only what exists without clustering: no cluster section, one instance.
    const wd = (w = await openCluster({ ids: ['a'] }));
    await wd.start('a');
    expect(wd.tg.webhookInfo().url).toBe(`${wd.lb.url}${WEBHOOK_PATH}`);
    const answer = 'Answered through the load balancer, from an index in PostgreSQL.';
    wd.model.enqueue(slowTurn(answer, 10));
    wd.tg.injectMessage({ chat: DM_USER, text: 'hello over the webhook' });
    const final = await waitForAnswer(wd, DM_USER, answer, 'the reply');
    expect(final.text).toBe(answer);
    expect(wd.tg.botMessages(DM_USER)).toHaveLength(1);
    expect(webhookHits(wd)).toEqual({ a: 1 });
    const [session] = await sessions(wd, 'a');
    expect(session.binding_key).toBe(`telegram:${DM_USER}:-`);
    const { Client } = await import('pg');
    const db = new Client({ connectionString: wd.databaseUrl });
    await db.connect();
    try {
      const rows = await db.query('SELECT session_id FROM sessions');
      expect(rows.rows.map((r) => r.session_id)).toEqual([session.session_id]);
    } finally {
      await db.end();
    }
  });

  it('spreads 20 DM conversations over both instances and answers each once with the complete text', async () => {
    const users = Array.from({ length: 20 }, (_, i) => 1001 + i);
    const wd = await cluster({ env: { PENGUIN_ALLOW_USERS: users.map((u) => `telegram:${u}`).join(',') } });
    const answerFor = (u: number) => `Answer for user ${u}: every word of this reply arrives, in order, exactly once.`;
    wd.model.setDefault((req) => {
      const asked = [...JSON.stringify(req.body.messages).matchAll(/question from (\d+)/g)].at(-1);
      return slowTurn(asked ? answerFor(Number(asked[1])) : 'no question found', 10);
    });
    for (const u of users) wd.tg.injectMessage({ chat: u, text: `question from ${u}` });
    for (const u of users) await waitForAnswer(wd, u, answerFor(u), `the reply to user ${u}`, 60_000);

    for (const u of users) {
      const replies = wd.tg.botMessages(u).filter((m) => !isCard(m));
      expect({ user: u, replies: replies.map((m) => m.text) }).toEqual({ user: u, replies: [answerFor(u)] });
    }
    expect(tooled(wd)).toHaveLength(users.length);

    const rows = await sessions(wd, 'a');
    const owners = users.map((u) => rows.find((s) => s.binding_key === `telegram:${u}:-`)?.owner_instance);
    expect(owners.every((o) => o === 'a' || o === 'b')).toBe(true);
    expect(new Set(owners)).toEqual(new Set(['a', 'b']));
    const [ra, rb] = [(await wd.readyz('a')).body, (await wd.readyz('b')).body];
    expect(ra.instance).toMatchObject({ id: 'a', peers: [expect.objectContaining({ id: 'b', last_seen: expect.any(Number) })] });
    expect(rb.instance).toMatchObject({ id: 'b', peers: [expect.objectContaining({ id: 'a', last_seen: expect.any(Number) })] });
    expect(ra.instance.owns).toBeGreaterThan(0);
    expect(rb.instance.owns).toBeGreaterThan(0);
    expect(ra.instance.owns + rb.instance.owns).toBe(users.length);
  }, 90_000);

  it('resolves an approval whose button press reaches the instance that does not own the conversation', async () => {
    const wd = await cluster();
    wd.model.enqueue(turn({ toolCalls: [execCall('call_allow', 'echo cluster-marker-$((6*7))')] }), turn({ text: 'The command printed the marker.' }));
    wd.lb.only(wd.gw('a').url);
    wd.tg.injectMessage({ chat: DM_USER, text: 'run the marker command' });
    const card = await wd.tg.waitFor(() => wd.tg.botMessages(DM_USER).find((m) => hasButton(m, 'Allow')), 15_000, 'approval card');
    const owner = await ownerOf(wd, DM_USER, 'a');
    const other = wd.ids.find((id) => id !== owner)!;

    wd.lb.only(wd.gw(other).url);
    const before = webhookHits(wd);
    const press = wd.tg.clickButton(DM_USER, card.message_id, 'Allow');
    const final = await waitForAnswer(wd, DM_USER, 'The command printed the marker.', 'the answer after Allow');
    // the press went to the other instance, and nothing else did
    expect(webhookHits(wd)[other] ?? 0).toBe((before[other] ?? 0) + 1);
    expect(webhookHits(wd)[owner]).toBe(before[owner]);

    expect(wd.tg.callbackQuery(press.callback_query!.id)!.answered).toBe(true);
    const decided = wd.tg.botMessages(DM_USER).find((m) => m.message_id === card.message_id)!;
    expect(decided.text).toMatch(/^✅ Allowed by .+: exec_command/);
    expect(buttonLabels(decided)).toEqual([]);
    expect(splitReply(final.text!).toolLines).toEqual([expect.stringMatching(/^✅ exec_command: print a marker/)]);
    expect(JSON.stringify(tooled(wd)[1].body.messages)).toContain('cluster-marker-42');
    expect((await wd.admin(other, '/api/approvals?state=pending')).body.approvals).toEqual([]);
    // the conversation stayed with its owner: the press was handed over, not taken over
    expect(await ownerOf(wd, DM_USER, other)).toBe(owner);
  }, 60_000);

  it('after kill -9 of the owner mid-stream, the survivor finalises the reply within 30 s and answers the chat from then on', async () => {
    const wd = await cluster();
    const long = 'Group words keep flowing until the owner dies. '.repeat(12);
    wd.model.enqueue(slowTurn(long, 60));
    wd.tg.injectMessage({ chat: { id: GROUP, type: 'supergroup', title: 'Team' }, from: DM_USER, text: `${BOT} start a long job` });
    const live = await wd.tg.waitFor(() => wd.tg.botMessages(GROUP).find((m) => m.text?.includes('Group words') && hasButton(m, 'Stop')), 15_000, 'streaming');
    // a second edit, so the owner has surely recorded what the first one showed before it dies
    await wd.tg.waitFor(() => wd.tg.callsTo('editMessageText').filter((c) => c.ok && String(c.params.text).includes('Group words')).length >= 2, 15_000, 'two edits');
    const owner = await ownerOf(wd, GROUP, 'a');
    const survivor = wd.ids.find((id) => id !== owner)!;

    await wd.crash(owner);
    const note = await wd.tg.waitFor(() => wd.tg.botMessages(GROUP).find((m) => hasButton(m, 'Continue')), 30_000, 'the survivor\'s Continue offer');
    const cut = wd.tg.botMessages(GROUP).find((m) => m.message_id === live.message_id)!;
    expect(cut.message_id).toBeLessThan(note.message_id);
    expect(note.text).toBe('⚠️ The gateway instance answering here stopped while I was working on this, so the reply above is incomplete.');
    expect(buttonLabels(cut)).toEqual([]);
    expect(cut.text).not.toContain('✍️');
    expect(cut.text!.endsWith(`\n\n${TAKEOVER_NOTE}`)).toBe(true);
    expect(long.startsWith(cut.text!.slice(0, -`\n\n${TAKEOVER_NOTE}`.length))).toBe(true);

    wd.model.enqueue(turn({ text: 'The survivor answers now.' }));
    wd.tg.injectMessage({ chat: { id: GROUP, type: 'supergroup', title: 'Team' }, from: DM_USER, text: `${BOT} are you still there?` });
    await waitForAnswer(wd, GROUP, 'The survivor answers now.', 'the next answer');
    expect(await ownerOf(wd, GROUP, survivor)).toBe(survivor);
    const ready = (await wd.readyz(survivor)).body;
    expect(ready.instance).toMatchObject({ id: survivor, peers: [] });
    expect(ready.instance.owns).toBeGreaterThan(0);
  }, 90_000);

  it('fires a schedule once, not twice, with both instances running', async () => {
    const wd = await cluster({}, 'none');
    // The schedule folder exists before the instances start, so each watches it (a folder made later is seen only at the next rescan).
    await mkdir(scheduleDir(wd.home), { recursive: true });
    await wd.startAll();
    // Telegram lets a bot write only to chats it knows.
    wd.tg.registerChat({ id: DM_USER, type: 'private', first_name: 'Ann' });
    const answer = 'Good morning from exactly one instance.';
    wd.model.enqueue(turn({ text: answer }), turn({ text: 'A second fire would say this.' }));
    // Written while both run, due a few seconds later: both have it armed when the slot comes.
    const at = new Date(Date.now() + 4000).toISOString();
    await writeScheduleFile(wd.home, 'digest', `prompt = "Say good morning"\nenabled = true\nstart_at = ${at}\ndeliver_to = "telegram:${DM_USER}"\n`);
    for (const id of wd.ids) {
      await until(`instance ${id} to list the schedule`, async () => ((await wd.admin(id, '/api/schedules')).body?.schedules ?? []).some((s: { id: string; valid: boolean }) => s.id === scheduleId('digest') && s.valid));
    }
    await waitForAnswer(wd, DM_USER, answer, 'the scheduled reply', 20_000);
    const runs = await until('a finished run', async () => {
      const r = (await wd.admin('a', `/api/schedules/${scheduleId('digest')}/runs`)).body?.runs as Array<{ status: string; kind: string }> | undefined;
      return r && r.some((x) => x.status === 'completed') ? r : undefined;
    });
    expect(runs).toEqual([expect.objectContaining({ kind: 'slot', status: 'completed' })]);
    expect(wd.tg.botMessages(DM_USER)).toHaveLength(1);
    expect(tooled(wd)).toHaveLength(1);
    expect((await wd.admin('b', `/api/schedules/${scheduleId('digest')}/runs`)).body.runs).toHaveLength(1);
  }, 60_000);

  it('long-polls from one elected instance, and from the other once the first is killed', async () => {
    const wd = await cluster({ polling: true });
    const leads = (id: string) => wd.gw(id).output().includes('long polling (this instance leads)');
    const leader = await until('an instance to lead', async () => wd.ids.find(leads), 15_000);
    const other = wd.ids.find((id) => id !== leader)!;
    wd.model.enqueue(turn({ text: 'Polled by the leader.' }));
    wd.tg.injectMessage({ chat: DM_USER, text: 'hello, poller' });
    await waitForAnswer(wd, DM_USER, 'Polled by the leader.', 'the first answer');
    expect(leads(other)).toBe(false);
    // Telegram refuses a second concurrent getUpdates with 409: the standby never asked.
    expect(wd.tg.callsTo('getUpdates').filter((c) => !c.ok)).toEqual([]);

    await wd.crash(leader);
    await until('the other instance to lead', async () => leads(other), 30_000);
    wd.model.enqueue(turn({ text: 'Polled by the survivor.' }));
    wd.tg.injectMessage({ chat: DM_USER, text: 'still there?' });
    await waitForAnswer(wd, DM_USER, 'Polled by the survivor.', 'the answer after the leader died', 30_000);
  }, 90_000);

  it('shows the live transcript of a session on the instance that does not run it', async () => {
    const wd = await cluster();
    const long = 'Live words written by the owner, read by its peer. '.repeat(10);
    wd.model.enqueue(slowTurn(long, 40));
    wd.tg.injectMessage({ chat: { id: GROUP, type: 'supergroup', title: 'Team' }, from: DM_USER, text: `${BOT} stream something` });
    await wd.tg.waitFor(() => wd.tg.botMessages(GROUP).find((m) => m.text?.includes('Live words')), 15_000, 'streaming');
    const owner = await ownerOf(wd, GROUP, 'a');
    const other = wd.ids.find((id) => id !== owner)!;
    const session = (await sessions(wd, other)).find((s) => s.binding_key?.startsWith(`telegram:${GROUP}:`))!;
    const res = await fetch(`${wd.gw(other).url}/api/sessions/${session.session_id}/events`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let got = '';
    const deadline = Date.now() + 20_000;
    while (!/event: messages\ndata: .*Live words/.test(got) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      got += Buffer.from(value).toString('utf8');
    }
    await reader.cancel();
    expect(got).toMatch(/event: messages\ndata: .*Live words/);
  }, 60_000);
});
