/**
 * Scheduled runs through the real runtime (in-process gateway, a fake Telegram adapter, the fake model):
 * the reply is a new message in the target chat whose text is the answer, the trace says source "schedule"
 * and sender "server", a user's answer continues that session; approvals follow the run's mode (allow-all
 * runs the tool, always-ask puts a card naming the schedule in the delivery chat, deny-all denies, and a
 * file asking for allow-all on a read-only route still asks); max_duration aborts with a note; runs without
 * deliver_to post to the playground; bound schedules run in their session; `/schedules` lists them.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChannelAdapter } from '../../../src/adapters/contract/adapter';
import { PlatformError } from '../../../src/adapters/contract/errors';
import { finishChunk, stream, textChunks, turn, usageChunk } from '../../fakes/openai-server';
import { FakeChatAdapter } from '../runtime/fake-chat-adapter';
import { fakeChannelAdapter } from './fake-channel-adapter';
import { startHarness, type Harness } from '../runtime/harness';

let h: Harness | undefined;
let cfgDir: string | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  if (cfgDir) await rm(cfgDir, { recursive: true, force: true });
  cfgDir = undefined;
});

const ANN = { id: '42', name: 'ann' };
const scheduleDir = (data: string) => join(data, 'default_project', 'agents', 'default_agent', 'agent_state', 'schedule');
/** A one-shot schedule due now (a new schedule's slot under a minute old fires at start). */
const dueNow = (extra: string, prompt = 'Summarise the open pull requests') =>
  `prompt = ${JSON.stringify(prompt)}\nenabled = true\nstart_at = ${new Date(Date.now() - 1000).toISOString()}\n${extra}`;
const exec = (id: string, cmd: string) => ({ id, name: 'exec_command', arguments: JSON.stringify({ description: 'print a marker', cmd }) });

async function start(files: Record<string, string>, o: { config?: string } = {}): Promise<{ h: Harness; chat: FakeChatAdapter }> {
  const chat = new FakeChatAdapter();
  let configFile: string | undefined;
  if (o.config) {
    cfgDir = await mkdtemp(join(tmpdir(), 'pg-sched-cfg-'));
    configFile = join(cfgDir, 'gateway.yaml');
    await writeFile(configFile, o.config);
  }
  h = await startHarness({
    extra: () => [{ adapter: chat }],
    env: { PENGUIN_ALLOW_USERS: 'telegram:42' },
    ...(configFile ? { configFile } : {}),
    scheduler: { rescanMs: 0 },
    prepare: async (data) => {
      await mkdir(scheduleDir(data), { recursive: true });
      for (const [name, toml] of Object.entries(files)) await writeFile(join(scheduleDir(data), `${name}.toml`), toml);
    },
  });
  return { h, chat };
}

async function finishedRun(hh: Harness, name: string) {
  return hh.waitFor(`run of ${name}`, async () => {
    const [r] = await hh.gateway.store.listScheduleRuns({ schedule_name: name });
    return r && (r.status === 'completed' || r.status === 'failed') ? r : undefined;
  });
}

const tooled = (hh: Harness) => hh.model.requests.filter((r) => r.body?.tools?.length);
const toolResult = (hh: Harness, i: number, id: string) => tooled(hh)[i].body.messages.find((m: { role: string; tool_call_id?: string }) => m.role === 'tool' && m.tool_call_id === id)?.content;

describe('scheduled runs delivered to a chat', () => {
  it('post the answer as a new message, trace source "schedule" and sender "server", and a reply continues the session', async () => {
    const { h: hh, chat } = await start({ digest: dueNow('deliver_to = "telegram:42"\n') });
    hh.model.enqueue(turn({ text: 'Three pull requests are open.' }));
    const run = await finishedRun(hh, 'digest');
    expect(run).toMatchObject({ status: 'completed', kind: 'slot', error: null, session_id: expect.stringMatching(/^session-/) });
    expect(chat.finalsIn('42')).toEqual(['Three pull requests are open.']);
    const first = JSON.stringify(tooled(hh)[0].body.messages);
    expect(first).toContain('[scheduled_task]\\nschedule: digest\\nfired_at: ');
    expect(first).toContain('Summarise the open pull requests\\n[/scheduled_task]');

    const transcript = (await hh.api(`/api/sessions/${run.session_id}/messages`)).body.messages;
    expect(transcript[0].payload).toMatchObject({ source: 'schedule' });
    expect(transcript.find((m: { payload: { type: string; role?: string } }) => m.payload.type === 'text' && m.payload.role === 'user').payload.sender).toBe('server');
    expect((await hh.gateway.store.getSession(run.session_id!))).toMatchObject({ title: '⏰ digest', binding_key: 'telegram:42:-', approval_mode: 'read-only' });

    hh.model.enqueue(turn({ text: 'The oldest one is #12.' }));
    await chat.inject(chat.dm(ANN, 'which one is the oldest?', 'u1'));
    await hh.waitFor('the follow-up answer', () => chat.finalsIn('42').includes('The oldest one is #12.'));
    expect((await hh.gateway.store.listSessions({})).map((s) => s.session_id)).toEqual([run.session_id]);
    const roles = tooled(hh)[1].body.messages.map((m: { role: string }) => m.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'user']);
  });

  it('start a new session at each fire: the chat then continues the newest one', async () => {
    const { h: hh, chat } = await start({});
    hh.model.enqueue(turn({ text: 'Earlier chat.' }));
    await chat.inject(chat.dm(ANN, 'hello', 'u1'));
    await hh.waitFor('chat answer', () => chat.finalsIn('42').includes('Earlier chat.'));
    const [before] = await hh.gateway.store.listSessions({});
    await writeFile(join(scheduleDir(join(hh.home, 'data')), 'digest.toml'), dueNow('deliver_to = "telegram:42"\n'));
    hh.model.enqueue(turn({ text: 'Scheduled answer.' }));
    await hh.gateway.scheduler.reload();
    const run = await finishedRun(hh, 'digest');
    expect(run.session_id).not.toBe(before.session_id);
    expect(await hh.gateway.store.resolveBinding('telegram:42:-')).toBe(run.session_id);
    expect(chat.finalsIn('42')).toEqual(['Earlier chat.', 'Scheduled answer.']);
  });
});

describe('approvals of unattended runs', () => {
  const ALLOW_ALL_ROUTE = 'default_route:\n  schedule_approval_mode: allow-all\n';

  it('allow-all (granted by the operator in the config) runs the tool without asking', async () => {
    const { h: hh, chat } = await start({ job: dueNow('deliver_to = "telegram:42"\n') }, { config: ALLOW_ALL_ROUTE });
    hh.model.enqueue(turn({ toolCalls: [exec('c1', 'echo sched-$((40+2))')] }), turn({ text: 'It printed the marker.' }));
    const run = await finishedRun(hh, 'job');
    expect(run.status).toBe('completed');
    expect(toolResult(hh, 1, 'c1')).toContain('sched-42');
    expect(chat.posted.some((p) => p.content.buttons?.some((b) => b.label === 'Allow'))).toBe(false);
  });

  it('always-ask posts the card in the delivery chat, naming the schedule; the chat\'s user may decide it', async () => {
    const { h: hh, chat } = await start({ job: dueNow('deliver_to = "telegram:42"\napproval_mode = "always-ask"\n') }, { config: ALLOW_ALL_ROUTE });
    hh.model.enqueue(turn({ toolCalls: [exec('c1', 'echo asked')] }), turn({ text: 'Done after asking.' }));
    const card = await hh.waitFor('card', () => chat.posted.find((p) => p.content.buttons?.some((b) => b.label === 'Allow')));
    expect(card.chat).toBe('telegram:42:-');
    expect(card.content.text).toMatch(/^✋ \*\*Approval needed\*\*: `exec_command` · scheduled run of `job`/);
    const allow = card.content.buttons!.find((b) => b.label === 'Allow')!;
    await chat.click(ANN, '42', card.id, allow.payload, 'cb1');
    const run = await finishedRun(hh, 'job');
    expect(run.status).toBe('completed');
    expect(toolResult(hh, 1, 'c1')).toContain('asked');
    expect((await hh.gateway.store.listApprovals({}))[0]).toMatchObject({ state: 'allowed', decided_by: 'telegram:42', requester: 'schedule:default_project:default_agent:job' });
  });

  it('deny-all denies the tool call and the run goes on', async () => {
    const { h: hh } = await start({ job: dueNow('deliver_to = "telegram:42"\napproval_mode = "deny-all"\n') }, { config: ALLOW_ALL_ROUTE });
    hh.model.enqueue(turn({ toolCalls: [exec('c1', 'echo never')] }), turn({ text: 'I was not allowed.' }));
    const run = await finishedRun(hh, 'job');
    expect(run.status).toBe('completed');
    expect(toolResult(hh, 1, 'c1')).toBe('Tool call denied by user.');
    expect(await hh.gateway.store.listApprovals({})).toEqual([]);
  });

  it('a file asking for allow-all on a read-only route (a file the agent could have written) still asks', async () => {
    const { h: hh, chat } = await start({ job: dueNow('deliver_to = "telegram:42"\napproval_mode = "allow-all"\n') });
    hh.model.enqueue(turn({ toolCalls: [exec('c1', 'echo escalated')] }), turn({ text: 'Denied, so not run.' }));
    const card = await hh.waitFor('card', () => chat.posted.find((p) => p.content.buttons?.some((b) => b.label === 'Deny')));
    expect(card.content.text).toContain('scheduled run of `job`');
    const views = (await hh.api('/api/schedules')).body.schedules;
    expect(views[0].approval).toEqual({ requested: 'allow-all', ceiling: 'read-only', ceiling_from: 'route_approval_mode', effective: 'read-only' });
    await chat.click(ANN, '42', card.id, card.content.buttons!.find((b) => b.label === 'Deny')!.payload, 'cb1');
    await finishedRun(hh, 'job');
    expect(toolResult(hh, 1, 'c1')).toBe('Tool call denied by user.');
  });

  it('a card of a run in a group is for the route\'s approvers only', async () => {
    const { h: hh, chat } = await start({ job: dueNow('deliver_to = "telegram:-100200"\napproval_mode = "always-ask"\n') }, { config: 'default_route:\n  approvers: ["telegram:7"]\n' });
    hh.model.enqueue(turn({ toolCalls: [exec('c1', 'echo group')] }), turn({ text: 'Done in the group.' }));
    const card = await hh.waitFor('card', () => chat.posted.find((p) => p.content.buttons?.some((b) => b.label === 'Allow')));
    const allow = card.content.buttons!.find((b) => b.label === 'Allow')!.payload;
    const thread = { platform: 'telegram' as const, chat: '-100200', topic: null };
    let answer: { text?: string } = {};
    await chat.handler!.onAction({ platform: 'telegram', thread, user: ANN, payload: allow, message: { thread, messageId: card.id }, eventId: 'cbx', answer: async (a) => { answer = a ?? {}; } });
    expect(answer.text).toMatch(/not yours to decide/);
    await chat.handler!.onAction({ platform: 'telegram', thread, user: { id: '7' }, payload: allow, message: { thread, messageId: card.id }, eventId: 'cby', answer: async () => undefined });
    expect((await finishedRun(hh, 'job')).status).toBe('completed');
  });
});

describe('limits and other targets', () => {
  it('aborts a run over max_duration with a note in its reply and a failed row', async () => {
    const { h: hh, chat } = await start({ slow: dueNow('deliver_to = "telegram:42"\nmax_duration = "1s"\n') });
    hh.model.enqueue(stream([...textChunks('a very slow answer that never ends in time', { size: 2 }), finishChunk('stop'), usageChunk({ prompt_tokens: 1, completion_tokens: 1 })], { chunkDelayMs: 150 }));
    const run = await finishedRun(hh, 'slow');
    expect(run).toMatchObject({ status: 'failed', error: 'the scheduled run took longer than its max_duration (1s)' });
    await hh.waitFor('the final reply', () => chat.finalsIn('42').length === 1);
    // Markdown as the adapter gets it (the underscore escaped); the text before the abort stays.
    expect(chat.finalsIn('42')[0]).toMatch(/^⛔ aborted: the scheduled run took longer than its max\\_duration \(1s\)\n\na very/);
  });

  it('posts to the playground conversation schedule-<name> when there is no deliver_to', async () => {
    const { h: hh } = await start({ quiet: dueNow('') });
    hh.model.enqueue(turn({ text: 'Nobody asked, but here it is.' }));
    await finishedRun(hh, 'quiet');
    expect(hh.botMessages('schedule-quiet').map((m) => m.text)).toEqual(['Nobody asked, but here it is.']);
  });

  it('runs a bound schedule in its session, on the conversation that session is on', async () => {
    const { h: hh, chat } = await start({});
    hh.model.enqueue(turn({ text: 'Noted.' }));
    await chat.inject(chat.dm(ANN, 'remind me to stretch', 'u1'));
    await hh.waitFor('chat answer', () => chat.finalsIn('42').includes('Noted.'));
    const [s] = await hh.gateway.store.listSessions({});
    await writeFile(join(scheduleDir(join(hh.home, 'data')), 'stretch.toml'), dueNow(`session_id = "${s.session_id}"\n`, 'Remind them to stretch'));
    hh.model.enqueue(turn({ text: 'Time to stretch!' }));
    await hh.gateway.scheduler.reload();
    const run = await finishedRun(hh, 'stretch');
    expect(run).toMatchObject({ status: 'completed', session_id: s.session_id });
    expect(chat.finalsIn('42')).toEqual(['Noted.', 'Time to stretch!']);
    const roles = tooled(hh)[1].body.messages.map((m: { role: string }) => m.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'user']);
  });

  it('records a failed run when the target platform has no adapter here, and tells no one it cannot reach', async () => {
    const { h: hh } = await start({ slacky: dueNow('deliver_to = "slack:T0123ABCD:C0456EFGH"\n') });
    const run = await finishedRun(hh, 'slacky');
    expect(run.error).toMatch(/^deliver_to slack:T0123ABCD:C0456EFGH: slack is not running in this gateway \(disabled: no credentials\)/);
    expect(hh.model.requests.filter((r) => r.body?.tools?.length)).toHaveLength(0);
    const [view] = (await hh.api('/api/schedules')).body.schedules;
    expect(view.delivery_problem).toBe(run.error);
  });

  it('/schedules lists the route\'s schedules with the next fire in each schedule\'s time zone', async () => {
    const { h: hh, chat } = await start({
      standup: 'prompt = "p"\nenabled = true\nstart_at = 2026-01-01T00:00:00Z\ncron = "0 9 * * MON-FRI"\ntimezone = "Europe/Berlin"\ndeliver_to = "telegram:42"\n',
      paused: 'prompt = "p"\nstart_at = 2026-01-01T00:00:00Z\nperiod = "1d"\n',
      broken: 'prompt = "p"\nstart_at = 2026-01-01T00:00:00Z\nperiod = "1 day"\n',
    });
    await chat.inject(chat.dm(ANN, '/schedules', 'u1'));
    const text = await hh.waitFor('listing', () => chat.textsIn('42').find((t) => t.startsWith('Schedules of')));
    expect(text.split('\n')[0]).toBe('Schedules of default_project/default_agent:');
    expect(text).toMatch(/• `standup` — cron `0 9 \* \* MON-FRI` · next (Mon|Tue|Wed|Thu|Fri), \d{1,2} \w{3} \d{4}, 09:00 \(Europe\/Berlin\) · posts here/);
    expect(text).toContain('• `paused` — every 1d · disabled');
    expect(text).toMatch(/• `broken` — invalid file, skipped \(period: expected text matching/);
  });
});

describe('channel targets (Slack, Discord)', () => {
  /** The runtime with a channel adapter (posing as Slack) and one schedule `eng`, due now, delivering to its channel. */
  const startOnChannel = (slack: ChannelAdapter): Promise<Harness> => startHarness({
    extra: () => [{ adapter: slack }],
    scheduler: { rescanMs: 0 },
    prepare: async (data) => {
      await mkdir(scheduleDir(data), { recursive: true });
      await writeFile(join(scheduleDir(data), 'eng.toml'), dueNow('deliver_to = "slack:T0123ABCD:C0456EFGH"\n'));
    },
  });

  it('open a new thread in the channel naming the schedule, reply in it, and a message in the thread continues the session', async () => {
    const slack = fakeChannelAdapter();
    h = await startOnChannel(slack);
    h.model.enqueue(turn({ text: 'Two PRs need review.' }));
    const run = await finishedRun(h, 'eng');
    expect(run.status).toBe('completed');
    const [opener, reply] = slack.posted;
    expect(opener).toMatchObject({ where: 'channel:T0123ABCD:C0456EFGH', content: { text: '⏰ **eng**' } });
    expect(reply.where).toBe(`slack:T0123ABCD:C0456EFGH:${opener.id}`);
    expect(reply.content).toMatchObject({ text: 'Two PRs need review.', final: true });
    const thread = { platform: 'slack' as const, team: 'T0123ABCD', channel: 'C0456EFGH', threadTs: opener.id };
    h.model.enqueue(turn({ text: 'The older one is #3.' }));
    await slack.inject({ platform: 'slack', thread, user: { id: 'U1' }, text: 'which is older?', attachments: [], mentionsBot: false, followUp: true, isDM: false, eventId: 'e1', messageId: 'm1', sentAt: Date.now() });
    await h.waitFor('the follow-up in the thread', () => slack.posted.find((p) => p.content.final && p.content.text === 'The older one is #3.'));
    expect((await h.gateway.store.listSessions({})).map((x) => x.session_id)).toEqual([run.session_id]);
  });

  it('report an adapter that cannot open threads as the delivery problem, and fail its runs with it', async () => {
    const slack = fakeChannelAdapter({ canStart: false });
    h = await startOnChannel(slack);
    const run = await finishedRun(h, 'eng');
    expect(run.error).toBe('deliver_to slack:T0123ABCD:C0456EFGH: the slack adapter of this gateway cannot start conversations in a channel');
    expect(slack.posted).toEqual([]);
  });

  it('show what the adapter knows is wrong with the target as the delivery problem, and fail its runs with it, posting nothing', async () => {
    const slack = fakeChannelAdapter();
    slack.deliveryProblem = (t) => (t.platform === 'slack' && t.team !== 'T9' ? `slack:${t.team}:${t.channel} is in workspace ${t.team}, but the bot is installed in T9` : undefined);
    h = await startOnChannel(slack);
    const run = await finishedRun(h, 'eng');
    expect(run).toMatchObject({ status: 'failed', error: 'deliver_to slack:T0123ABCD:C0456EFGH: slack:T0123ABCD:C0456EFGH is in workspace T0123ABCD, but the bot is installed in T9' });
    const [view] = (await h.api('/api/schedules')).body.schedules;
    expect(view.delivery_problem).toBe(run.error);
    expect(slack.posted).toEqual([]);
  });

  it("fail a run whose conversation the platform refused with the adapter's reason", async () => {
    const slack = fakeChannelAdapter();
    slack.startConversation = async () => {
      throw new PlatformError('slack', { kind: 'surface', reason: 'permission' }, 'not_in_channel');
    };
    h = await startOnChannel(slack);
    const run = await finishedRun(h, 'eng');
    expect(run).toMatchObject({ status: 'failed', error: 'deliver_to slack:T0123ABCD:C0456EFGH: not_in_channel' });
    expect(slack.posted).toEqual([]);
  });
});

