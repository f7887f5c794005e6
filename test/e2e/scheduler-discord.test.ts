/**
 * Scheduled runs delivered to Discord end to end: the real gateway process (built CLI) with the fake Discord
 * platform and the fake model, set up through the public environment only. A run for
 * `deliver_to = "discord:<guild>:<channel>"` posts its first message in the channel, opens a thread on it
 * and replies there with exactly the answer; a member's message in that thread continues the same session;
 * an always-ask run puts its card, naming the schedule, in the thread; a channel of another guild fails the
 * run with the adapter's reason and posts nothing.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { turn, type RecordedRequest } from '../fakes/openai-server';
import { customIdOf, hasButton, isFinal, openDiscordWorld, type DiscordWorld } from './discord-world';
import { assertGatewayBuilt } from './gateway-process';

let w: DiscordWorld | undefined;
beforeAll(() => assertGatewayBuilt());
afterEach(async () => {
  await w?.close();
  w = undefined;
});

/** alice's id, fixed so the config can name her as the approver before the fake platform runs. */
const ALICE = '700000000000000001';
const ID = (name: string) => `default_project:default_agent:${name}`;
/** A disabled schedule (it runs only when asked to) delivering to `target`. */
const job = (target: string, extra = '') => `prompt = "Summarise the open pull requests"\nstart_at = 2026-01-01T09:00:00Z\nperiod = "1d"\ndeliver_to = "${target}"\n${extra}`;
const execCall = (id: string, cmd: string) => ({ id, name: 'exec_command', arguments: JSON.stringify({ cmd, description: 'print a marker' }) });
const tooled = (wd: DiscordWorld): RecordedRequest[] => wd.model.requests.filter((r) => r.body?.tools?.length);

async function world(files: (wd: DiscordWorld) => Record<string, string>, config: Record<string, unknown> = {}): Promise<DiscordWorld> {
  w = await openDiscordWorld({
    config: { discord: { message_content: true }, default_route: { approvers: [`discord:${ALICE}`] }, ...config },
    discord: {
      privilegedIntents: { messageContent: true },
      guilds: [{ name: 'Eng', channels: ['general'], members: [{ id: ALICE, username: 'alice' }, 'bob'] }, { name: 'Other', channels: ['elsewhere'] }],
    },
  });
  const dir = join(w.dir, 'data', 'default_project', 'agents', 'default_agent', 'agent_state', 'schedule');
  await mkdir(dir, { recursive: true });
  for (const [name, toml] of Object.entries(files(w))) await writeFile(join(dir, `${name}.toml`), toml);
  await w.start();
  return w;
}

const general = (wd: DiscordWorld) => `discord:${wd.dc.guild('Eng').id}:${wd.dc.channelId('general')}`;

async function run(wd: DiscordWorld, name: string): Promise<void> {
  const r = await wd.admin(`/api/schedules/${ID(name)}/run`, { method: 'POST' });
  expect(r.status).toBe(202);
}

/** Polls what only the admin API shows. */
async function finishedRun(wd: DiscordWorld, name: string): Promise<{ status: string; error: string | null; session_id: string | null }> {
  const until = Date.now() + 15_000;
  for (;;) {
    const [r] = (await wd.admin(`/api/schedules/${ID(name)}/runs`)).body?.runs ?? [];
    if (r && (r.status === 'completed' || r.status === 'failed')) return r;
    if (Date.now() > until) throw new Error(`timed out waiting for a finished run of ${name}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** The bot's first message of the run in #general, once the thread on it exists. */
const opener = (wd: DiscordWorld, name: string) => wd.dc.waitFor(() => {
  const m = wd.dc.botMessages('general').find((x) => x.content === `⏰ **${name}**`);
  return m && wd.dc.channelView('general').threads.some((t) => t.id === m.id) ? m : undefined;
}, 15_000, `the first message of ${name} and its thread`);

const finalIn = (wd: DiscordWorld, thread: string, text: string) =>
  wd.dc.waitFor(() => wd.dc.botMessages(thread).find((m) => isFinal(m) && m.content === text), 15_000, `"${text}" in the thread`);

describe('scheduled runs delivered to Discord (real gateway process)', () => {
  it('post a first message in the channel, reply with the answer in a thread on it, and a member continues the session there', async () => {
    const answer = 'Two pull requests are waiting for review: #3 and #7.';
    const wd = await world((x) => ({ eng: job(general(x)) }));
    wd.model.enqueue(turn({ text: answer }));
    await run(wd, 'eng');
    const first = await opener(wd, 'eng');
    await finalIn(wd, first.id, answer);
    expect(wd.dc.botMessages(first.id).map((m) => m.content)).toEqual([answer]);
    expect(wd.dc.channelView('general').threads).toEqual([{ id: first.id, name: '⏰ eng', archived: false, starterMessageId: first.id }]);
    expect(wd.dc.transcript('general')).toEqual(['penguin-bot: ⏰ **eng**']);
    expect(wd.dc.pingingMessages()).toEqual([]);
    const done = await finishedRun(wd, 'eng');
    expect(done).toMatchObject({ status: 'completed', error: null });
    expect(JSON.stringify(tooled(wd)[0].body.messages)).toMatch(/\[scheduled_task\]\\nschedule: eng\\nfired_at: [^\\]+\\n\\nSummarise the open pull requests\\n\[\/scheduled_task\]/);

    wd.model.enqueue(turn({ text: 'The older one is #3.' }));
    wd.dc.message(first.id, 'alice', 'which one is older?');
    await finalIn(wd, first.id, 'The older one is #3.');
    const followUp = tooled(wd)[1].body.messages as Array<{ role: string; content: unknown }>;
    expect(followUp.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(JSON.stringify(followUp[2].content)).toContain(answer);
    expect(JSON.stringify(followUp[3].content)).toContain('which one is older?');
    const sessions = (await wd.admin('/api/sessions')).body.sessions as Array<{ session_id: string; binding_key: string }>;
    expect(sessions).toEqual([expect.objectContaining({ session_id: done.session_id, binding_key: `${general(wd)}:${first.id}` })]);
  });

  it('an always-ask run posts its card, naming the schedule, in the delivery thread, and an approver decides it there', async () => {
    const wd = await world((x) => ({ ask: job(general(x), 'approval_mode = "always-ask"\n') }));
    wd.model.enqueue(turn({ toolCalls: [execCall('c_ask', 'echo asked-$((6*7))')] }), turn({ text: 'Ran it after asking.' }));
    await run(wd, 'ask');
    const first = await opener(wd, 'ask');
    const card = await wd.dc.waitFor(() => wd.dc.botMessages(first.id).find((m) => hasButton(m, 'Allow')), 15_000, 'the card in the thread');
    expect(card.content.split('\n')[0]).toBe('✋ **Approval needed**: `exec_command` · scheduled run of `ask`');
    expect(card.content).toContain('echo asked-$((6*7))');
    expect(hasButton(card, 'Deny')).toBe(true);
    expect(card.allowedMentions).toEqual({ parse: [], replied_user: false });
    expect(wd.dc.botMessages('general').filter((m) => hasButton(m, 'Allow'))).toEqual([]);

    const stranger = wd.dc.clickButton(card.id, customIdOf(card, 'Allow'), 'bob');
    expect((await stranger.waitForAck()).ackType).toBe(4);
    wd.dc.clickButton(card.id, customIdOf(card, 'Allow'), 'alice');
    const reply = await wd.dc.waitFor(() => wd.dc.botMessages(first.id).find((m) => isFinal(m) && m.content.endsWith('Ran it after asking.')), 15_000, 'the reply after the approval');
    expect(reply.content).toMatch(/^✅ `?exec_command`?: print a marker/);
    expect(wd.dc.messageView(card.id).content).toMatch(/^✅ \*\*Allowed\*\* by alice: `exec_command`/);
    const result = (tooled(wd)[1].body.messages as Array<{ role: string; content: unknown }>).find((m) => m.role === 'tool');
    expect(JSON.stringify(result?.content)).toContain('asked-42');
    expect(await finishedRun(wd, 'ask')).toMatchObject({ status: 'completed' });
  });

  it("fails a run whose target channel is in another guild with the adapter's reason, posting nothing", async () => {
    const wd = await world((x) => ({ astray: job(`discord:${x.dc.guild('Eng').id}:${x.dc.channelId('elsewhere')}`) }));
    await run(wd, 'astray');
    const failed = await finishedRun(wd, 'astray');
    const [eng, other, elsewhere] = [wd.dc.guild('Eng').id, wd.dc.guild('Other').id, wd.dc.channelId('elsewhere')];
    expect(failed).toMatchObject({ status: 'failed', error: `deliver_to discord:${eng}:${elsewhere}: channel ${elsewhere} is in guild ${other}, not in guild ${eng}` });
    expect(wd.dc.botMessages('elsewhere')).toEqual([]);
    expect(wd.dc.botMessages('general')).toEqual([]);
    expect(tooled(wd)).toEqual([]);
  });
});
