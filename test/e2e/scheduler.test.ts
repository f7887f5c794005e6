/**
 * The scheduler end to end: the real gateway process (built CLI) with the fake Telegram Bot API and the fake
 * model, set up through the public environment only. A scheduled run is delivered to Telegram as a new
 * message whose text is the answer and the user continues that session in the chat; a file written while
 * the gateway runs is picked up and run with `penguin-gateway schedules run`; unattended approvals behave as
 * the run's mode says (allow-all runs the tool, always-ask posts a card naming the schedule, deny-all denies).
 */
import type { MessageView } from '../fakes/telegram-store';
import { turn, type RecordedRequest } from '../fakes/openai-server';
import { assertGatewayBuilt } from './gateway-process';
import { scheduleId, until, writeScheduleFile } from './schedule-files';
import { DM_USER, hasButton, isFinalReply, openWorld, splitReply, type World, type WorldOptions } from './telegram-world';

let w: World | undefined;
beforeAll(() => assertGatewayBuilt());
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const ID = scheduleId;
const writeSchedule = (wd: World, name: string, toml: string) => writeScheduleFile(wd.home, name, toml);
const tooled = (wd: World): RecordedRequest[] => wd.model.requests.filter((r) => r.body?.tools?.length);
const toolResult = (req: RecordedRequest, id: string): string => {
  const m = (req.body.messages as Array<{ role: string; tool_call_id?: string; content: unknown }>).find((x) => x.role === 'tool' && x.tool_call_id === id);
  return typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content);
};
const execCall = (id: string, cmd: string) => ({ id, name: 'exec_command', arguments: JSON.stringify({ cmd, description: 'print a marker' }) });


async function world(files: Record<string, string>, o: WorldOptions = {}): Promise<World> {
  w = await openWorld(o);
  // The user has talked to the bot before (Telegram lets a bot write only to chats it knows).
  w.tg.registerChat({ id: DM_USER, type: 'private', first_name: 'Ann' });
  for (const [name, toml] of Object.entries(files)) await writeSchedule(w, name, toml);
  await w.start();
  return w;
}

function finalReply(wd: World, answer: string, label: string): Promise<MessageView> {
  return wd.tg.waitFor(() => wd.tg.botMessages(DM_USER).find((m) => isFinalReply(m) && splitReply(m.text ?? '').answer === answer), 10_000, label);
}

async function finishedRun(wd: World, name: string): Promise<{ status: string; error: string | null; session_id: string | null; kind: string }> {
  return until(`a finished run of ${name}`, async () => {
    const r = await wd.admin(`/api/schedules/${ID(name)}/runs`);
    const [run] = r.body?.runs ?? [];
    return run && (run.status === 'completed' || run.status === 'failed') ? run : undefined;
  });
}

describe('scheduler end to end (real gateway process)', () => {
  it('records a run whose reply Telegram refused as failed, with the platform\'s reason', async () => {
    w = await openWorld({});
    await writeSchedule(w, 'stranger', `prompt = "p"\nenabled = true\nstart_at = ${new Date(Date.now() - 2000).toISOString()}\ndeliver_to = "telegram:4242"\n`);
    await w.start();
    w.model.enqueue(turn({ text: 'Nobody will see this.' }));
    expect(await finishedRun(w, 'stranger')).toMatchObject({ status: 'failed', error: expect.stringMatching(/^the reply could not be delivered: .*chat not found/) });
  });

  it('delivers a scheduled run to Telegram as a new message equal to the answer, and the user continues that session', async () => {
    const answer = 'Good morning! Two pull requests are waiting for review.';
    const wd = await world({
      digest: `prompt = "Summarise the open pull requests"\nenabled = true\nstart_at = ${new Date(Date.now() - 2000).toISOString()}\ndeliver_to = "telegram:${DM_USER}"\n`,
    });
    wd.model.enqueue(turn({ text: answer }));
    const reply = await finalReply(wd, answer, 'the scheduled reply');
    expect(reply.text).toBe(answer);
    expect(wd.tg.botMessages(DM_USER)).toHaveLength(1);
    const run = await finishedRun(wd, 'digest');
    expect(run).toMatchObject({ status: 'completed', kind: 'slot', error: null });
    expect(JSON.stringify(tooled(wd)[0].body.messages)).toMatch(/\[scheduled_task\]\\nschedule: digest\\nfired_at: \d{4}-\d{2}-\d{2}T[\d:.]+Z\\n\\nSummarise the open pull requests\\n\[\/scheduled_task\]/);

    wd.model.enqueue(turn({ text: 'The older one is #7.' }));
    wd.tg.injectMessage({ chat: DM_USER, text: 'which one is older?' });
    await finalReply(wd, 'The older one is #7.', 'the follow-up reply');
    const followUp = tooled(wd)[1].body.messages as Array<{ role: string; content: unknown }>;
    expect(followUp.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(JSON.stringify(followUp[2].content)).toContain('Two pull requests are waiting');
    const sessions = (await wd.admin('/api/sessions')).body.sessions as Array<{ session_id: string }>;
    expect(sessions.map((s) => s.session_id)).toEqual([run.session_id]);
    const transcript = (await wd.admin(`/api/sessions/${run.session_id}/messages`)).body.messages;
    expect(transcript[0].payload.source).toBe('schedule');
  });

  it('picks up a schedule file written while it runs, lists it, and runs it on `schedules run`', async () => {
    const wd = await world({});
    await writeSchedule(wd, 'later', `prompt = "Check the build"\nstart_at = 2026-01-01T09:00:00Z\ncron = "0 9 * * MON-FRI"\ntimezone = "Europe/Berlin"\ndeliver_to = "telegram:${DM_USER}"\n`);
    const listed = await until('the new schedule in the API', async () => (await wd.admin('/api/schedules')).body.schedules.find((s: { id: string }) => s.id === ID('later')));
    expect(listed).toMatchObject({ valid: true, enabled: false, schedule: { kind: 'cron', cron: '0 9 * * MON-FRI', timezone: 'Europe/Berlin' } });
    wd.model.enqueue(turn({ text: 'The build is green.' }));
    const cli = await wd.cli(['schedules', 'run', 'later']);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/^✓ queued run #\d+ \(manual\) queued of default_project:default_agent:later/);
    await finalReply(wd, 'The build is green.', 'the manual run\'s reply');
    expect(await finishedRun(wd, 'later')).toMatchObject({ status: 'completed', kind: 'manual' });
    const list = await wd.cli(['schedules', 'list']);
    expect(list.stdout).toMatch(/default_project:default_agent:later {2}cron "0 9 \* \* MON-FRI" \(Europe\/Berlin\) {2}disabled {2}→ telegram:42\n {4}last: run #\d+ \(manual\) completed/);
  });

  describe('unattended approvals', () => {
    const job = (mode: string) => `prompt = "Print the marker"\nstart_at = 2026-01-01T09:00:00Z\nperiod = "1d"\ndeliver_to = "telegram:${DM_USER}"\napproval_mode = "${mode}"\n`;
    // The operator lets scheduled runs of the default route go as far as allow-all; each file then decides.
    const config = { default_route: { schedule_approval_mode: 'allow-all' } };

    it('allow-all runs the tool, always-ask posts a card naming the schedule, deny-all denies', async () => {
      const wd = await world({ lax: job('allow-all'), ask: job('always-ask'), strict: job('deny-all') }, { config });

      wd.model.enqueue(turn({ toolCalls: [execCall('c_lax', 'echo lax-$((6*7))')] }), turn({ text: 'Ran it unattended.' }));
      expect((await wd.admin(`/api/schedules/${ID('lax')}/run`, { method: 'POST' })).status).toBe(202);
      const lax = await finalReply(wd, 'Ran it unattended.', 'allow-all reply');
      expect(splitReply(lax.text!).toolLines).toEqual([expect.stringMatching(/^✅ exec_command: print a marker/)]);
      expect(toolResult(tooled(wd)[1], 'c_lax')).toContain('lax-42');
      expect(wd.tg.botMessages(DM_USER).some((m) => hasButton(m, 'Allow'))).toBe(false);
      await finishedRun(wd, 'lax');

      wd.model.enqueue(turn({ toolCalls: [execCall('c_ask', 'echo asked')] }), turn({ text: 'Ran it after asking.' }));
      await wd.admin(`/api/schedules/${ID('ask')}/run`, { method: 'POST' });
      const card = await wd.tg.waitFor(() => wd.tg.botMessages(DM_USER).find((m) => hasButton(m, 'Allow')), 10_000, 'the always-ask card');
      expect(card.text).toMatch(/^✋ Approval needed: exec_command · scheduled run of ask/);
      wd.tg.clickButton(DM_USER, card.message_id, 'Allow');
      await finalReply(wd, 'Ran it after asking.', 'always-ask reply');
      expect(toolResult(tooled(wd)[3], 'c_ask')).toContain('asked');
      expect(await finishedRun(wd, 'ask')).toMatchObject({ status: 'completed' });

      wd.model.enqueue(turn({ toolCalls: [execCall('c_strict', 'echo never')] }), turn({ text: 'It was not allowed.' }));
      await wd.admin(`/api/schedules/${ID('strict')}/run`, { method: 'POST' });
      const strict = await finalReply(wd, 'It was not allowed.', 'deny-all reply');
      expect(toolResult(tooled(wd)[5], 'c_strict')).toBe('Tool call denied by user.');
      expect(splitReply(strict.text!).toolLines).toEqual([expect.stringMatching(/^⛔ exec_command: print a marker — denied/)]);
      expect((await wd.admin('/api/approvals')).body.approvals).toHaveLength(1);
    });

    it('a file asking for allow-all on a route the operator left read-only still asks', async () => {
      const wd = await world({ sneaky: job('allow-all') });
      wd.model.enqueue(turn({ toolCalls: [execCall('c_sneaky', 'echo escalated')] }), turn({ text: 'Stopped at the card.' }));
      await wd.admin(`/api/schedules/${ID('sneaky')}/run`, { method: 'POST' });
      const card = await wd.tg.waitFor(() => wd.tg.botMessages(DM_USER).find((m) => hasButton(m, 'Deny')), 10_000, 'the card');
      expect(card.text).toContain('scheduled run of sneaky');
      wd.tg.clickButton(DM_USER, card.message_id, 'Deny');
      await finalReply(wd, 'Stopped at the card.', 'the reply after the denial');
      expect(toolResult(tooled(wd)[1], 'c_sneaky')).toBe('Tool call denied by user.');
    });
  });
});
