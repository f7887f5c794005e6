/** Deliveries and their reply timelines, inbound dedupe and schedule runs. */
import type { GatewayStore } from '../../../src/gateway/store';
import { describeBackends, openTestStore, type TestStore } from './helpers';

describeBackends('ledger', (backend) => {
  let t: TestStore;
  let store: GatewayStore;
  beforeEach(async () => {
    t = await openTestStore(backend);
    store = t.store;
  });
  afterEach(() => t.cleanup());

  describe('deliveries', () => {
    it('track attempts, message ids and states', async () => {
      const d = await store.createDelivery({ platform: 'telegram', chat: '42', purpose: 'live', session_id: 's1', task_id: 'task-1' });
      expect(d).toMatchObject({ state: 'pending', attempts: 0, platform_message_id: null, last_error: null, created_at: t.clock.t });
      t.clock.t += 10;
      expect(await store.markDeliveryAttemptFailed(d.id, '429 retry_after 3', false)).toMatchObject({ state: 'pending', attempts: 1, last_error: '429 retry_after 3', updated_at: t.clock.t });
      expect(await store.markDeliverySent(d.id, '1001')).toMatchObject({ state: 'sent', attempts: 2, platform_message_id: '1001' });
      expect(await store.setDeliveryState(d.id, 'finalized')).toMatchObject({ state: 'finalized' });

      const card = await store.createDelivery({ platform: 'slack', chat: 'C1', purpose: 'card' });
      expect(await store.markDeliveryAttemptFailed(card.id, 'not_in_channel', true)).toMatchObject({ state: 'failed', attempts: 1 });
      expect(await store.markDeliverySent(999, 'x')).toBeUndefined();
      expect(await store.getDelivery(card.id)).toMatchObject({ purpose: 'card', session_id: null });
      await expect(store.createDelivery({ platform: 'slack', chat: 'C1', purpose: 'banner' as never })).rejects.toMatchObject({ code: 'constraint' });
    });

    it('list the open ones a restart must finish, and a timeline per session', async () => {
      const live = await store.createDelivery({ platform: 'telegram', chat: '42', purpose: 'live', session_id: 's1' });
      await store.markDeliverySent(live.id, '7');
      const pending = await store.createDelivery({ platform: 'slack', chat: 'C1', purpose: 'final', session_id: 's1', task_id: 'task-9' });
      const done = await store.createDelivery({ platform: 'telegram', chat: '42', purpose: 'notice', session_id: 's2', state: 'finalized' });
      expect((await store.listOpenDeliveries()).map((d) => d.id)).toEqual([live.id, pending.id]);
      expect((await store.listOpenDeliveries({ purpose: 'live' })).map((d) => d.id)).toEqual([live.id]);
      expect((await store.listOpenDeliveries({ platform: 'slack' })).map((d) => d.id)).toEqual([pending.id]);
      await store.setDeliveryState(live.id, 'interrupted');
      expect((await store.listOpenDeliveries()).map((d) => d.id)).toEqual([pending.id]);

      expect((await store.listDeliveries({ session_id: 's1' })).map((d) => d.id)).toEqual([live.id, pending.id]);
      expect((await store.listDeliveries({ task_id: 'task-9' })).map((d) => d.id)).toEqual([pending.id]);
      expect((await store.listDeliveries({ platform: 'telegram', chat: '42' })).map((d) => d.id)).toEqual([live.id, done.id]);
      expect(await store.listDeliveries({ limit: 1 })).toHaveLength(1);
    });
  });

  describe('reply timelines', () => {
    it('keep a Task\'s steps in the order written, apart from other Tasks, until pruned', async () => {
      const d = await store.createDelivery({ platform: 'telegram', chat: '42', purpose: 'live', session_id: 's1', task_id: 'task-1' });
      await store.addDeliveryEvent({ task_id: 'task-1', delivery_id: null, part: null, kind: 'inbound', detail: 'message 5', at: t.clock.t - 500 });
      await store.addDeliveryEvent({ task_id: 'task-1', delivery_id: d.id, part: 0, kind: 'rate_limited', detail: 'x'.repeat(3000) });
      await store.addDeliveryEvent({ task_id: 'task-2', delivery_id: null, part: null, kind: 'task_started', detail: null });
      t.clock.t += 1000;
      await store.addDeliveryEvent({ task_id: 'task-1', delivery_id: d.id, part: 0, kind: 'post', detail: 'message 1001' });
      const steps = await store.listDeliveryEvents('task-1');
      expect(steps.map((e) => [e.kind, e.delivery_id, e.part])).toEqual([['inbound', null, null], ['rate_limited', d.id, 0], ['post', d.id, 0]]);
      expect(steps[0].at).toBe(t.clock.t - 1500);
      expect(steps[1].detail).toHaveLength(2000);
      expect(await store.listDeliveryEvents('task-1', 1)).toHaveLength(1);
      expect(await store.pruneDeliveryEvents(t.clock.t)).toBe(3);
      expect((await store.listDeliveryEvents('task-1')).map((e) => e.kind)).toEqual(['post']);
      expect(await store.listDeliveryEvents('task-2')).toEqual([]);
    });
  });

  describe('inbound dedupe', () => {
    it('acts on an event once and forgets old ones when pruned', async () => {
      expect(await store.recordInbound('slack', 'Ev01')).toBe(true);
      expect(await store.recordInbound('slack', 'Ev01')).toBe(false);
      expect(await store.recordInbound('telegram', 'Ev01')).toBe(true);
      t.clock.t += 1000;
      expect(await store.recordInbound('discord', '1234')).toBe(true);
      expect(await store.pruneInbound(t.clock.t)).toBe(2);
      expect(await store.recordInbound('slack', 'Ev01')).toBe(true);
      expect(await store.recordInbound('discord', '1234')).toBe(false);
    });
  });

  describe('schedule runs', () => {
    const ref = { schedule_name: 'daily-digest', project_id: 'p', agent_id: 'a' };

    it('record each slot once, with status, session and duration', async () => {
      const slot = Date.UTC(2027, 0, 1, 9);
      const run = await store.addScheduleRun(ref, slot, 'queued');
      expect(run).toMatchObject({ ...ref, slot, status: 'queued', session_id: null, started_at: null });
      expect(await store.addScheduleRun(ref, slot, 'queued')).toBeUndefined();
      expect(await store.startScheduleRun(run!.id, 'session-x', 1000)).toMatchObject({ status: 'running', session_id: 'session-x', started_at: 1000 });
      expect(await store.finishScheduleRun(run!.id, 'completed', null, 4500)).toMatchObject({ status: 'completed', ended_at: 4500, duration_ms: 3500, error: null });

      const missed = await store.addScheduleRun(ref, slot + 3_600_000, 'missed');
      expect(missed).toMatchObject({ status: 'missed' });
      const failed = await store.addScheduleRun(ref, slot + 7_200_000, 'queued');
      expect(await store.finishScheduleRun(failed!.id, 'failed', 'model auth', 10)).toMatchObject({ status: 'failed', error: 'model auth', duration_ms: null });
      await store.addScheduleRun({ ...ref, schedule_name: 'other' }, slot, 'queued');

      expect((await store.listScheduleRuns({ schedule_name: 'daily-digest' })).map((r) => r.status)).toEqual(['failed', 'missed', 'completed']);
      expect((await store.listScheduleRuns({ status: 'queued' })).map((r) => r.schedule_name)).toEqual(['other']);
      expect(await store.listScheduleRuns({ project_id: 'p', agent_id: 'a', limit: 2 })).toHaveLength(2);
    });

    it('tell manual runs from slots, carry why a slot was missed, and end a queued fire that never started as missed', async () => {
      const manual = await store.addScheduleRun(ref, 5000, 'queued', 5000, { kind: 'manual' });
      expect(manual).toMatchObject({ kind: 'manual', status: 'queued' });
      expect(await store.getScheduleRun(manual!.id)).toEqual(manual);
      const missed = await store.addScheduleRun(ref, 6000, 'missed', 6000, { error: 'the gateway was not running' });
      expect(missed).toMatchObject({ kind: 'slot', status: 'missed', error: 'the gateway was not running' });
      expect(await store.finishScheduleRun(manual!.id, 'missed', 'the schedule was disabled before it could run', 7000)).toMatchObject({ status: 'missed', duration_ms: null, ended_at: 7000 });
      expect(await store.getScheduleRun(999)).toBeUndefined();
    });

    it('keep how far each schedule was watched, never moving it back', async () => {
      const other = { ...ref, schedule_name: 'other' };
      await store.markSchedulesWatched([ref, other], 100);
      await store.markSchedulesWatched([ref], 300);
      await store.markSchedulesWatched([other], 50);
      expect(await store.listScheduleWatermarks()).toEqual([{ ...ref, watched_until: 300 }, { ...other, watched_until: 100 }]);
    });

    it('keep one approval grant per schedule, the latest', async () => {
      const g = { ...ref, approval_mode: 'allow-all' as const, definition_hash: 'h1', granted_by: 'web:admin', granted_at: 1 };
      await store.setScheduleGrant(g);
      await store.setScheduleGrant({ ...g, approval_mode: 'deny-all', definition_hash: 'h2', granted_at: 2 });
      expect(await store.listScheduleGrants()).toEqual([{ ...g, approval_mode: 'deny-all', definition_hash: 'h2', granted_at: 2 }]);
    });

    it('give a slot to exactly one of two connections racing for it', async () => {
      const other = await t.target.open();
      try {
        const slots = [1, 2, 3, 4, 5].map((i) => Date.UTC(2027, 0, 1, 9) + i * 60_000);
        const won = await Promise.all(slots.flatMap((slot) => [store.addScheduleRun(ref, slot, 'queued'), other.addScheduleRun(ref, slot, 'queued')]));
        expect(won.filter(Boolean).map((r) => r!.slot).sort()).toEqual(slots);
        expect(await other.listScheduleRuns({ limit: 100 })).toHaveLength(slots.length);
      } finally {
        await other.close();
      }
    });

    it('fail the runs a dead process left queued or running', async () => {
      const a = await store.addScheduleRun(ref, 1, 'queued');
      const b2 = await store.addScheduleRun(ref, 2, 'queued');
      await store.startScheduleRun(b2!.id, 's', 100);
      const c = await store.addScheduleRun(ref, 3, 'missed');
      const failed = await store.failUnfinishedScheduleRuns('gateway restarted', 700);
      expect(failed.map((r) => [r.id, r.status, r.error, r.duration_ms])).toEqual([
        [a!.id, 'failed', 'gateway restarted', null],
        [b2!.id, 'failed', 'gateway restarted', 600],
      ]);
      expect((await store.listScheduleRuns({ status: 'missed' })).map((r) => r.id)).toEqual([c!.id]);
      expect(await store.failUnfinishedScheduleRuns('again')).toEqual([]);
    });
  });
});
