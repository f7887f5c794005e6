/**
 * Scheduled runs delivered to Slack end to end: the real gateway process (built CLI) with the fake Slack
 * (signed Events API deliveries, Web API) and the fake model, set up through the public environment only.
 * A run of a schedule with `deliver_to = "slack:<team>:<channel>"` opens a new top-level message naming the
 * schedule and replies in its thread with exactly the answer; a person answering in that thread, without a
 * mention and then with one, continues the same session (the model gets the earlier turns). An always-ask
 * run posts its card into the delivery thread naming the schedule. A channel the bot is not in and a team
 * that is not the bot's fail the run with a reason saying so, and nothing is posted.
 */
import { join } from 'node:path';
import { turn, type RecordedRequest } from '../fakes/openai-server';
import type { SlackMessageView } from '../fakes/slack-server';
import { assertGatewayBuilt } from './gateway-process';
import { scheduleId, until, writeScheduleFile } from './schedule-files';
import { ALICE, botReplies, buttonLabels, openSlackWorld, waitForCard, waitForFinal, type SlackWorld, type SlackWorldOptions } from './slack-world';
import { splitReply } from './telegram-world';

let w: SlackWorld | undefined;
beforeAll(() => assertGatewayBuilt());
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const ID = scheduleId;
const tooled = (wd: SlackWorld): RecordedRequest[] => wd.model.requests.filter((r) => r.body?.tools?.length);
const execCall = (id: string, cmd: string) => ({ id, name: 'exec_command', arguments: JSON.stringify({ cmd, description: 'print a marker' }) });
const toolResult = (req: RecordedRequest, id: string): string => {
  const m = (req.body.messages as Array<{ role: string; tool_call_id?: string; content: unknown }>).find((x) => x.role === 'tool' && x.tool_call_id === id);
  return typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content);
};
/** A schedule run only when asked (`POST /api/schedules/:id/run`). */
const manual = (deliverTo: string, extra = '') => `prompt = "Summarise the open pull requests"\nstart_at = 2026-01-01T09:00:00Z\nperiod = "1d"\ndeliver_to = "${deliverTo}"\n${extra}`;

async function world(files: (wd: SlackWorld) => Record<string, string>, o: SlackWorldOptions = {}): Promise<SlackWorld> {
  w = await openSlackWorld(o);
  for (const [name, toml] of Object.entries(files(w))) await writeScheduleFile(join(w.dir, 'data'), name, toml);
  await w.start();
  return w;
}


async function runNow(wd: SlackWorld, name: string): Promise<void> {
  expect((await wd.admin(`/api/schedules/${ID(name)}/run`, { method: 'POST' })).status).toBe(202);
}

async function finishedRun(wd: SlackWorld, name: string): Promise<{ status: string; error: string | null; session_id: string | null; kind: string }> {
  return until(`a finished run of ${name}`, async () => {
    const [run] = (await wd.admin(`/api/schedules/${ID(name)}/runs`)).body?.runs ?? [];
    return run && (run.status === 'completed' || run.status === 'failed') ? run : undefined;
  });
}

/** The bot's top-level messages in the channel (thread replies left out). */
const topLevel = (wd: SlackWorld, channel: string): SlackMessageView[] => wd.slack.channelState(channel).messages.filter((m) => m.from === 'bot');

function opener(wd: SlackWorld, channel: string, name: string): Promise<SlackMessageView> {
  return wd.slack.waitFor(() => topLevel(wd, channel).find((m) => m.visibleText === `⏰ **${name}**`), 15_000, `the opener of ${name}`);
}

describe('scheduled runs delivered to Slack (real gateway process)', () => {
  it('opens a thread in the channel, answers in it, and a reply in the thread continues the session', async () => {
    const answer = 'Good morning! Two pull requests are waiting for review.';
    const wd = await world((x) => ({ digest: manual(`slack:${x.slack.team.id}:${x.slack.defaultChannel}`) }));
    const channel = wd.slack.defaultChannel;
    wd.model.enqueue(turn({ text: answer }));
    await runNow(wd, 'digest');

    const root = await opener(wd, channel, 'digest');
    expect(root.thread_ts).toBeUndefined();
    expect(root.text).toBe('⏰ *digest*');
    const reply = await waitForFinal(wd, channel, root.ts, answer);
    expect(reply.visibleText).toBe(answer);
    expect(reply.thread_ts).toBe(root.ts);
    expect(botReplies(wd, channel, root.ts)).toHaveLength(1);
    expect(topLevel(wd, channel)).toHaveLength(1);
    const run = await finishedRun(wd, 'digest');
    expect(run).toMatchObject({ status: 'completed', kind: 'manual', error: null });
    expect(JSON.stringify(tooled(wd)[0].body.messages)).toMatch(/\[scheduled_task\]\\nschedule: digest\\nfired_at: \d{4}-\d{2}-\d{2}T[\d:.]+Z\\n\\nSummarise the open pull requests\\n\[\/scheduled_task\]/);
    expect(wd.slack.rateLimitedCount()).toBe(0);

    // No mention needed in the thread the bot answered (slack.thread_follow_up).
    wd.model.enqueue(turn({ text: 'The older one is #7.' }));
    wd.slack.message(channel, ALICE, 'which one is older?', { thread_ts: root.ts });
    await waitForFinal(wd, channel, root.ts, 'The older one is #7.');
    const second = tooled(wd)[1].body.messages as Array<{ role: string; content: unknown }>;
    expect(second.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(JSON.stringify(second[2].content)).toContain('Two pull requests are waiting');
    expect(JSON.stringify(second[3].content)).toContain('which one is older?');

    // A mention in the thread continues the same session too.
    wd.model.enqueue(turn({ text: 'The newest one is #9.' }));
    wd.slack.mention(channel, ALICE, 'and the newest?', { thread_ts: root.ts });
    await waitForFinal(wd, channel, root.ts, 'The newest one is #9.');
    const third = tooled(wd)[2].body.messages as Array<{ role: string; content: unknown }>;
    expect(third.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(JSON.stringify(third[4].content)).toContain('The older one is #7.');

    const sessions = (await wd.admin('/api/sessions')).body.sessions as Array<{ session_id: string; binding_key: string }>;
    expect(sessions).toEqual([expect.objectContaining({ session_id: run.session_id, binding_key: `slack:${wd.slack.team.id}:${channel}:${root.ts}` })]);
    const transcript = (await wd.admin(`/api/sessions/${run.session_id}/messages`)).body.messages;
    expect(transcript[0].payload.source).toBe('schedule');
    expect(topLevel(wd, channel)).toHaveLength(1);
  });

  it('fires a due slot by itself into the channel', async () => {
    const wd = await world((x) => ({
      standup: `prompt = "Standup"\nenabled = true\nstart_at = ${new Date(Date.now() - 2000).toISOString()}\ndeliver_to = "slack:${x.slack.team.id}:${x.slack.defaultChannel}"\n`,
    }), { mode: 'socket' });
    wd.model.enqueue(turn({ text: 'Standup summary: all green.' }));
    const root = await opener(wd, wd.slack.defaultChannel, 'standup');
    expect((await waitForFinal(wd, wd.slack.defaultChannel, root.ts, 'all green')).visibleText).toBe('Standup summary: all green.');
    expect(await finishedRun(wd, 'standup')).toMatchObject({ status: 'completed', kind: 'slot' });
  });

  it('posts an always-ask card into the delivery thread naming the schedule; an approver allows it', async () => {
    const wd = await world((x) => ({ ask: manual(`slack:${x.slack.team.id}:${x.slack.defaultChannel}`, 'approval_mode = "always-ask"\n') }), {
      config: { default_route: { schedule_approval_mode: 'allow-all', approvers: [`slack:${ALICE}`] } },
    });
    const channel = wd.slack.defaultChannel;
    wd.model.enqueue(turn({ toolCalls: [execCall('c_ask', 'echo asked-$((6*7))')] }), turn({ text: 'Ran it after asking.' }));
    await runNow(wd, 'ask');
    const root = await opener(wd, channel, 'ask');
    const card = await waitForCard(wd, channel, root.ts);
    expect(card.thread_ts).toBe(root.ts);
    expect(card.visibleText).toMatch(/^✋ \*Approval needed\*: `exec_command` · scheduled run of `ask`/);
    expect(buttonLabels(card)).toEqual(['Allow', 'Deny', 'Allow for this session']);

    expect((await wd.slack.clickButton(card.ts, 'Allow', ALICE).done).state).toBe('acked');
    const final = await waitForFinal(wd, channel, root.ts, 'Ran it after asking.');
    expect(splitReply(final.visibleText).answer).toBe('Ran it after asking.');
    expect(toolResult(tooled(wd)[1], 'c_ask')).toContain('asked-42');
    expect(wd.slack.messageState(card.ts)!.visibleText).toMatch(/^✅ \*Allowed\* by .+: `exec_command` · scheduled run of `ask`/);
    expect(await finishedRun(wd, 'ask')).toMatchObject({ status: 'completed' });
    expect(topLevel(wd, channel)).toHaveLength(1);
  });

  it('fails the run with what to do when the bot is not in the channel, and posts nothing', async () => {
    const wd = await world((x) => {
      x.slack.addChannel({ id: 'C0RANDOM01', name: 'random', botMember: false, members: [ALICE] });
      return { outside: manual(`slack:${x.slack.team.id}:C0RANDOM01`) };
    });
    await runNow(wd, 'outside');
    const run = await finishedRun(wd, 'outside');
    expect(run.status).toBe('failed');
    expect(run.error).toBe(`deliver_to slack:${wd.slack.team.id}:C0RANDOM01: @penguin is not a member of channel C0RANDOM01: invite it there (/invite @penguin) (chat.postMessage: not_in_channel)`);
    expect(wd.slack.callsTo('chat.postMessage').map((c) => c.error)).toEqual(['not_in_channel']);
    expect(wd.slack.botMessages('C0RANDOM01')).toEqual([]);
    expect(tooled(wd)).toHaveLength(0);
  });

  it('fails the run for a team that is not the bot\'s workspace, without calling Slack', async () => {
    const wd = await world((x) => ({ elsewhere: manual(`slack:T0OTHER99:${x.slack.defaultChannel}`) }));
    await runNow(wd, 'elsewhere');
    const run = await finishedRun(wd, 'elsewhere');
    expect(run).toMatchObject({ status: 'failed' });
    expect(run.error).toBe(`deliver_to slack:T0OTHER99:${wd.slack.defaultChannel}: slack:T0OTHER99:${wd.slack.defaultChannel} is in workspace T0OTHER99, but this gateway's Slack bot is installed in ${wd.slack.team.id} (${wd.slack.team.name})`);
    expect(wd.slack.callsTo('chat.postMessage')).toHaveLength(0);
    expect(tooled(wd)).toHaveLength(0);
  });
});
