/**
 * The scheduler on a fake clock (issue 18): period slots, cron slots in Europe/Berlin across both DST
 * changes, one fire at a time with at most one waiting, slots missed while the gateway was down, end_at,
 * a file edited while its run is going, and manual runs (the API's and the ones the CLI queues).
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { iso, runsOf, schedulerRig, type Rig } from './helpers';

const T0 = Date.UTC(2026, 5, 1, 9, 0, 0);
const MIN = 60_000;
let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const file = (o: Record<string, string | boolean>) =>
  Object.entries({ prompt: 'p', enabled: true, ...o })
    .map(([k, v]) => (k === 'start_at' || k === 'end_at' ? `${k} = ${v}` : `${k} = ${JSON.stringify(v)}`))
    .join('\n') + '\n';

describe('period slots', () => {
  it('fires start_at + k·period on time, one run row per slot, and says when it fires next', async () => {
    rig = await schedulerRig({ start: T0 - 10 * MIN });
    await rig.write('every5', file({ prompt: 'tick', start_at: iso(T0), period: '5m' }));
    await rig.scheduler.start();
    const t = rig.scheduler.find('every5')!;
    expect(rig.scheduler.nextFire(t)).toBe(T0);
    await rig.clock.advance(10 * MIN - 1);
    expect(rig.executor.fires).toHaveLength(0);
    await rig.clock.advance(1);
    expect(rig.executor.fires.map((f) => iso(f.slot))).toEqual([iso(T0)]);
    await rig.executor.endAll();
    expect(rig.scheduler.nextFire(t)).toBe(T0 + 5 * MIN);
    await rig.clock.advance(5 * MIN);
    await rig.executor.endAll();
    await rig.clock.advance(5 * MIN);
    await rig.executor.endAll();
    expect(rig.executor.fires.map((f) => iso(f.slot))).toEqual([iso(T0), iso(T0 + 5 * MIN), iso(T0 + 10 * MIN)]);
    expect(await runsOf(rig.store, 'every5')).toEqual([[iso(T0), 'completed'], [iso(T0 + 5 * MIN), 'completed'], [iso(T0 + 10 * MIN), 'completed']]);
    const [last] = await rig.store.listScheduleRuns({ schedule_name: 'every5', limit: 1 });
    expect(last).toMatchObject({ kind: 'slot', session_id: expect.stringMatching(/^session-/), duration_ms: 0 });
  });

  it('never fires a disabled schedule, and an enabled one-shot fires once at start_at', async () => {
    rig = await schedulerRig({ start: T0 - MIN });
    await rig.write('off', file({ enabled: false, start_at: iso(T0), period: '5m' }));
    await rig.write('once', file({ prompt: 'just once', start_at: iso(T0) }));
    await rig.scheduler.start();
    await rig.clock.advance(30 * MIN);
    await rig.executor.endAll();
    expect(rig.executor.fires.map((f) => [f.prompt, iso(f.slot)])).toEqual([['just once', iso(T0)]]);
    expect(rig.scheduler.nextFire(rig.scheduler.find('once')!)).toBeUndefined();
    expect(rig.scheduler.nextFire(rig.scheduler.find('off')!)).toBeUndefined();
    expect(await runsOf(rig.store, 'off')).toEqual([]);
  });

  it('stops after end_at (a slot exactly at end_at still fires)', async () => {
    rig = await schedulerRig({ start: T0 - MIN });
    await rig.write('bounded', file({ start_at: iso(T0), period: '5m', end_at: iso(T0 + 10 * MIN) }));
    await rig.scheduler.start();
    for (let i = 0; i < 6; i++) {
      await rig.clock.advance(5 * MIN);
      await rig.executor.endAll();
    }
    expect(rig.executor.fires.map((f) => iso(f.slot))).toEqual([iso(T0), iso(T0 + 5 * MIN), iso(T0 + 10 * MIN)]);
    expect(rig.scheduler.nextFire(rig.scheduler.find('bounded')!)).toBeUndefined();
  });
});

describe('cron slots in Europe/Berlin', () => {
  /** Fires per Berlin calendar day, as `YYYY-MM-DD HH:mm` local → UTC instants. */
  async function firesOver(rigNow: Rig, days: number): Promise<string[]> {
    for (let i = 0; i < days * 24; i++) {
      await rigNow.clock.advance(3_600_000);
      await rigNow.executor.endAll();
    }
    const local = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Berlin', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });
    return rigNow.executor.fires.map((f) => `${local.format(f.slot)} = ${iso(f.slot)}`);
  }

  it('fires 09:00 local every day across the spring change: no day skipped, the UTC hour moves', async () => {
    rig = await schedulerRig({ start: Date.UTC(2026, 2, 27, 0, 0), options: { tickMs: 6 * 3_600_000 } });
    await rig.write('standup', file({ start_at: '2026-03-01T00:00:00Z', cron: '0 9 * * *', timezone: 'Europe/Berlin' }));
    await rig.scheduler.start();
    expect(await firesOver(rig, 4)).toEqual([
      '2026-03-27 09:00 = 2026-03-27T08:00:00.000Z',
      '2026-03-28 09:00 = 2026-03-28T08:00:00.000Z',
      '2026-03-29 09:00 = 2026-03-29T07:00:00.000Z',
      '2026-03-30 09:00 = 2026-03-30T07:00:00.000Z',
    ]);
  });

  it('fires 09:00 local every day across the autumn change: once a day, never twice', async () => {
    rig = await schedulerRig({ start: Date.UTC(2026, 9, 23, 0, 0), options: { tickMs: 6 * 3_600_000 } });
    await rig.write('standup', file({ start_at: '2026-10-01T00:00:00Z', cron: '0 9 * * *', timezone: 'Europe/Berlin' }));
    await rig.scheduler.start();
    expect(await firesOver(rig, 4)).toEqual([
      '2026-10-23 09:00 = 2026-10-23T07:00:00.000Z',
      '2026-10-24 09:00 = 2026-10-24T07:00:00.000Z',
      '2026-10-25 09:00 = 2026-10-25T08:00:00.000Z',
      '2026-10-26 09:00 = 2026-10-26T08:00:00.000Z',
    ]);
  });

  it('a time inside the changed hour fires once a day: after the spring gap, at the first 02:30 in autumn', async () => {
    rig = await schedulerRig({ start: Date.UTC(2026, 2, 28, 0, 0), options: { tickMs: 6 * 3_600_000 } });
    await rig.write('nightly', file({ start_at: '2026-03-01T00:00:00Z', cron: '30 2 * * *', timezone: 'Europe/Berlin' }));
    await rig.scheduler.start();
    expect(await firesOver(rig, 3)).toEqual([
      '2026-03-28 02:30 = 2026-03-28T01:30:00.000Z',
      '2026-03-29 03:00 = 2026-03-29T01:00:00.000Z',
      '2026-03-30 02:30 = 2026-03-30T00:30:00.000Z',
    ]);
    await rig.close();
    rig = await schedulerRig({ start: Date.UTC(2026, 9, 24, 0, 0), options: { tickMs: 6 * 3_600_000 } });
    await rig.write('nightly', file({ start_at: '2026-10-01T00:00:00Z', cron: '30 2 * * *', timezone: 'Europe/Berlin' }));
    await rig.scheduler.start();
    expect(await firesOver(rig, 3)).toEqual([
      '2026-10-24 02:30 = 2026-10-24T00:30:00.000Z',
      '2026-10-25 02:30 = 2026-10-25T00:30:00.000Z',
      '2026-10-26 02:30 = 2026-10-26T01:30:00.000Z',
    ]);
  });
});

describe('one fire at a time', () => {
  it('queues one slot behind a running fire, records the next as missed, and runs the queued one when the first ends', async () => {
    rig = await schedulerRig({ start: T0 - MIN });
    await rig.write('slow', file({ start_at: iso(T0), period: '5m' }));
    await rig.scheduler.start();
    await rig.clock.advance(MIN);
    expect(rig.executor.fires).toHaveLength(1);
    await rig.clock.advance(5 * MIN);
    await rig.clock.advance(5 * MIN);
    expect(rig.executor.fires).toHaveLength(1);
    expect(await runsOf(rig.store, 'slow')).toEqual([[iso(T0), 'running'], [iso(T0 + 5 * MIN), 'queued'], [iso(T0 + 10 * MIN), 'missed']]);
    const [missed] = await rig.store.listScheduleRuns({ schedule_name: 'slow', status: 'missed' });
    expect(missed.error).toMatch(/previous run was still going and one fire was already waiting/);
    await rig.executor.fires[0].end();
    expect(rig.executor.fires.map((f) => iso(f.slot))).toEqual([iso(T0), iso(T0 + 5 * MIN)]);
    await rig.executor.fires[1].end({ status: 'failed', error: 'the model key was rejected' });
    expect(await runsOf(rig.store, 'slow')).toEqual([[iso(T0), 'completed'], [iso(T0 + 5 * MIN), 'failed'], [iso(T0 + 10 * MIN), 'missed']]);
    await rig.clock.advance(5 * MIN);
    expect(rig.executor.fires.map((f) => iso(f.slot))).toEqual([iso(T0), iso(T0 + 5 * MIN), iso(T0 + 15 * MIN)]);
  });

  it('run now goes through the same lane: starts when idle, waits behind a running fire, refused when one already waits', async () => {
    rig = await schedulerRig({ start: T0 });
    await rig.write('manual', file({ enabled: false, start_at: iso(T0), period: '1d' }));
    await rig.scheduler.start();
    const first = await rig.scheduler.runNow('manual');
    expect(first).toMatchObject({ ok: true, run: { kind: 'manual', status: 'queued', slot: T0 } });
    expect(rig.executor.fires).toHaveLength(1);
    const second = await rig.scheduler.runNow('default_project:default_agent:manual');
    expect(second).toMatchObject({ ok: true, run: { kind: 'manual', status: 'queued' } });
    expect(await rig.scheduler.runNow('manual')).toMatchObject({ ok: false, code: 'already_queued' });
    expect(await rig.scheduler.runNow('nope')).toMatchObject({ ok: false, code: 'not_found' });
    await rig.executor.fires[0].end();
    expect(rig.executor.fires).toHaveLength(2);
    await rig.executor.endAll();
    expect((await rig.store.listScheduleRuns({ schedule_name: 'manual' })).map((r) => [r.kind, r.status])).toEqual([['manual', 'completed'], ['manual', 'completed']]);
  });

  it('picks up runs another process queued (the CLI) and fails ones for schedules it does not have', async () => {
    rig = await schedulerRig({ start: T0, options: { pollMs: 2000 } });
    await rig.write('report', file({ enabled: false, start_at: iso(T0), period: '1d' }));
    await rig.scheduler.start();
    const ref = { project_id: 'default_project', agent_id: 'default_agent', schedule_name: 'report' };
    const queued = await rig.store.addScheduleRun(ref, T0 + 1, 'queued', T0, { kind: 'manual' });
    const stray = await rig.store.addScheduleRun({ ...ref, schedule_name: 'ghost' }, T0 + 1, 'queued', T0, { kind: 'manual' });
    await rig.clock.advance(2000);
    expect(rig.executor.fires.map((f) => f.req.run.id)).toEqual([queued!.id]);
    expect(await rig.store.getScheduleRun(stray!.id)).toMatchObject({ status: 'failed', error: 'no schedule default_project:default_agent:ghost in this gateway' });
    await rig.executor.endAll();
    await rig.clock.advance(2000);
    expect(rig.executor.fires).toHaveLength(1);
  });
});

describe('operator edits', () => {
  it('enable and disable write the file; enabling with a mode grants it to that exact definition until the file changes', async () => {
    rig = await schedulerRig({ start: T0 - MIN });
    await rig.write('digest', file({ enabled: false, start_at: iso(T0), period: '5m' }));
    await rig.scheduler.start();
    const route = rig.config.default_route;
    expect(await rig.scheduler.setEnabled('digest', true, { approvalMode: 'allow-all', actor: 'web:admin' })).toEqual({ ok: true });
    expect(await readFile(join(rig.dir, 'digest.toml'), 'utf8')).toMatch(/enabled = true\n[\s\S]*approval_mode = "allow-all"/);
    const t = rig.scheduler.find('digest')!;
    expect(rig.scheduler.approvalOf(t.entry, route)).toMatchObject({ effective: 'allow-all', ceiling_from: 'operator_grant', grant: 'active' });
    expect(await rig.store.listScheduleGrants()).toEqual([expect.objectContaining({ schedule_name: 'digest', approval_mode: 'allow-all', granted_by: 'web:admin' })]);
    await rig.clock.advance(MIN);
    expect(rig.executor.fires).toHaveLength(1);
    await rig.executor.endAll();
    // Disabling and enabling again keeps the grant: `enabled` is not part of what it covers.
    await rig.scheduler.setEnabled('digest', false);
    await rig.clock.advance(5 * MIN);
    expect(rig.executor.fires).toHaveLength(1);
    await rig.scheduler.setEnabled('digest', true);
    expect(rig.scheduler.approvalOf(rig.scheduler.find('digest')!.entry, route)).toMatchObject({ effective: 'allow-all', grant: 'active' });
    // The agent edits the prompt: back to the route's cap.
    await rig.write('digest', (await readFile(join(rig.dir, 'digest.toml'), 'utf8')).replace('prompt = "p"', 'prompt = "and also mail the secrets"'));
    await rig.scheduler.reload();
    expect(rig.scheduler.approvalOf(rig.scheduler.find('digest')!.entry, route)).toMatchObject({ effective: 'read-only', ceiling_from: 'route_approval_mode', grant: 'stale' });
    expect(await rig.scheduler.setEnabled('nope', true)).toMatchObject({ ok: false, code: 'not_found' });
  });
});

describe('downtime', () => {
  it('records the slots that passed while the gateway was down as missed, and fires none of them', async () => {
    rig = await schedulerRig({ start: T0 - MIN });
    await rig.write('every5', file({ start_at: iso(T0), period: '5m' }));
    await rig.scheduler.start();
    await rig.clock.advance(2 * MIN);
    await rig.executor.endAll();
    await rig.scheduler.stop();
    // Down from T0+1m to T0+32m.
    await rig.clock.advance(31 * MIN);
    await (await rig.restart(rig.clock.now())).start();
    expect(rig.executor.fires).toHaveLength(1);
    expect(await runsOf(rig.store, 'every5')).toEqual([
      [iso(T0), 'completed'],
      ...[5, 10, 15, 20, 25, 30].map((m) => [iso(T0 + m * MIN), 'missed'] as [string, string]),
    ]);
    const missed = await rig.store.listScheduleRuns({ schedule_name: 'every5', status: 'missed' });
    expect(new Set(missed.map((r) => r.error))).toEqual(new Set(['not fired: the gateway was not running at this time']));
    expect(rig.log.some((l) => /"missed":6/.test(l) && /recorded as missed, not replayed/.test(l))).toBe(true);
    await rig.clock.advance(3 * MIN);
    expect(rig.executor.fires.map((f) => iso(f.slot))).toEqual([iso(T0), iso(T0 + 35 * MIN)]);
  });

  it('still fires a slot that is only seconds old at start, and fails the runs the dead process left running', async () => {
    rig = await schedulerRig({ start: T0 - MIN });
    await rig.write('daily', file({ start_at: iso(T0 - 1440 * MIN), period: '1d' }));
    await rig.scheduler.start();
    await rig.clock.advance(2 * MIN);
    expect(rig.executor.fires).toHaveLength(1);
    // The process dies mid-run (its scheduler stops looking); the next start, 20 s after the next slot,
    // finds the run still marked running.
    await rig.scheduler.stop();
    await rig.clock.advance(1440 * MIN - MIN + 20_000);
    const s = await rig.restart(rig.clock.now());
    await s.start();
    expect(await runsOf(rig.store, 'daily')).toEqual([
      [iso(T0), 'failed'],
      [iso(T0 + 1440 * MIN), 'running'],
    ]);
    expect((await rig.store.listScheduleRuns({ schedule_name: 'daily', status: 'failed' }))[0].error).toMatch(/gateway stopped/);
  });

  it('treats a schedule it never watched as new: its past slots are not missed', async () => {
    rig = await schedulerRig({ start: T0 + 60 * MIN });
    await rig.write('fresh', file({ start_at: iso(T0), period: '5m' }));
    await rig.scheduler.start();
    expect(await runsOf(rig.store, 'fresh')).toEqual([[iso(T0 + 60 * MIN), 'running']]);
  });
});

describe('files change while the gateway runs', () => {
  it('a running fire keeps its definition; the next fire uses the edited one; a waiting fire of a disabled schedule is missed', async () => {
    rig = await schedulerRig({ start: T0 - MIN });
    await rig.write('job', file({ prompt: 'old prompt', start_at: iso(T0), period: '5m' }));
    await rig.scheduler.start();
    await rig.clock.advance(MIN);
    expect(rig.executor.fires.map((f) => f.prompt)).toEqual(['old prompt']);
    await rig.write('job', file({ prompt: 'new prompt', start_at: iso(T0), period: '10m' }));
    await rig.scheduler.reload();
    await rig.clock.advance(5 * MIN);
    // 5m is no slot of the edited schedule; the running fire was left alone.
    expect(await runsOf(rig.store, 'job')).toEqual([[iso(T0), 'running']]);
    await rig.clock.advance(5 * MIN);
    expect(await runsOf(rig.store, 'job')).toEqual([[iso(T0), 'running'], [iso(T0 + 10 * MIN), 'queued']]);
    await rig.write('job', file({ enabled: false, prompt: 'new prompt', start_at: iso(T0), period: '10m' }));
    await rig.scheduler.reload();
    await rig.executor.fires[0].end();
    expect(rig.executor.fires).toHaveLength(1);
    expect(await runsOf(rig.store, 'job')).toEqual([[iso(T0), 'completed'], [iso(T0 + 10 * MIN), 'missed']]);
    expect((await rig.store.listScheduleRuns({ schedule_name: 'job', status: 'missed' }))[0].error).toBe('not fired: its schedule was disabled before it could run');
    await rig.write('job', file({ prompt: 'new prompt', start_at: iso(T0), period: '10m' }));
    await rig.scheduler.reload();
    await rig.clock.advance(10 * MIN);
    expect(rig.executor.fires.map((f) => [f.prompt, iso(f.slot)])).toEqual([['old prompt', iso(T0)], ['new prompt', iso(T0 + 20 * MIN)]]);
  });

  it('a file removed while its fire runs lets that fire finish and then forgets the schedule', async () => {
    rig = await schedulerRig({ start: T0 });
    await rig.write('gone', file({ start_at: iso(T0), period: '5m' }));
    await rig.scheduler.start();
    expect(rig.executor.fires).toHaveLength(1);
    await rm(join(rig.dir, 'gone.toml'));
    await rig.scheduler.reload();
    expect(rig.scheduler.find('gone')).toBeUndefined();
    await rig.executor.fires[0].end();
    expect(await runsOf(rig.store, 'gone')).toEqual([[iso(T0), 'completed']]);
    await rig.clock.advance(10 * MIN);
    expect(rig.executor.fires).toHaveLength(1);
  });

  it('a delivery problem fails the run with the reason, and the schedule keeps its slots', async () => {
    rig = await schedulerRig({ start: T0 });
    await rig.write('nowhere', file({ start_at: iso(T0), period: '5m', deliver_to: 'web:x' }));
    rig.executor.problem = 'no slack adapter is running in this gateway';
    await rig.scheduler.start();
    expect(rig.executor.fires).toHaveLength(0);
    const [row] = await rig.store.listScheduleRuns({ schedule_name: 'nowhere' });
    expect(row).toMatchObject({ status: 'failed', error: 'no slack adapter is running in this gateway', started_at: null });
    rig.executor.problem = undefined;
    await rig.clock.advance(5 * MIN);
    expect(rig.executor.fires).toHaveLength(1);
  });
});
