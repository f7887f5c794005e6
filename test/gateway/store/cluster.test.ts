/** The cluster tables on both backends: heartbeats, conversation claims, takeovers of dead instances, the mailbox, schedule runs by instance. */
import { describeBackends, storePerTest } from './helpers';

const LEASE = 10_000;

describeBackends('cluster', (backend) => {
  const ctx = storePerTest(backend);
  const aliveSince = () => ctx.t.clock.t - LEASE;

  it('registers an instance once, then renews it; says so again after peers removed it', async () => {
    expect(await ctx.store.heartbeat('a', 'http://a', ctx.t.clock.t)).toBe('registered');
    ctx.t.clock.t += 1000;
    expect(await ctx.store.heartbeat('a', 'http://a2', ctx.t.clock.t - 1000)).toBe('renewed');
    expect(await ctx.store.listInstances()).toEqual([{ instance_id: 'a', url: 'http://a2', started_at: ctx.t.clock.t - 1000, heartbeat_at: ctx.t.clock.t }]);
    await ctx.store.heartbeat('b', null, ctx.t.clock.t);
    ctx.t.clock.t += LEASE + 1;
    await ctx.store.heartbeat('b', null, ctx.t.clock.t);
    expect((await ctx.store.takeOverDead('b', aliveSince())).instances).toEqual(['a']);
    expect(await ctx.store.heartbeat('a', 'http://a', 0)).toBe('registered');
  });

  it('gives a conversation to its first claimer while that one lives, then to whoever claims it after its lease', async () => {
    await ctx.store.heartbeat('a', null, ctx.t.clock.t);
    await ctx.store.heartbeat('b', null, ctx.t.clock.t);
    expect(await ctx.store.claimConversation('telegram:1', 'a', aliveSince())).toBe('a');
    expect(await ctx.store.claimConversation('telegram:1', 'b', aliveSince())).toBe('a');
    expect(await ctx.store.claimConversation('telegram:1', 'a', aliveSince())).toBe('a');
    ctx.t.clock.t += LEASE + 1;
    await ctx.store.heartbeat('b', null, ctx.t.clock.t);
    expect(await ctx.store.claimConversation('telegram:1', 'b', aliveSince())).toBe('b');
    expect(await ctx.store.conversationOwners(['telegram:1', 'telegram:2'])).toEqual(new Map([['telegram:1', 'b']]));
    expect(await ctx.store.conversationsOwnedBy('b')).toEqual(['telegram:1']);
  });

  it('settles racing claims on one owner', async () => {
    await Promise.all(['a', 'b', 'c'].map((id) => ctx.store.heartbeat(id, null, ctx.t.clock.t)));
    const results = await Promise.all(['a', 'b', 'c', 'a', 'b', 'c'].map((id) => ctx.store.claimConversation('slack:T:C:1', id, aliveSince())));
    expect(new Set(results).size).toBe(1);
  });

  it('gives a burst of new conversations claimed from two instances at once each one owner', async () => {
    await ctx.store.heartbeat('a', null, ctx.t.clock.t);
    await ctx.store.heartbeat('b', null, ctx.t.clock.t);
    const keys = Array.from({ length: 40 }, (_, i) => `telegram:${i}:-`);
    const owners = await Promise.all(keys.flatMap((k, i) => [ctx.store.claimConversation(k, i % 2 ? 'a' : 'b', aliveSince()), ctx.store.claimConversation(k, i % 2 ? 'b' : 'a', aliveSince())]));
    for (let i = 0; i < keys.length; i++) expect(owners[2 * i + 1]).toBe(owners[2 * i]);
    expect((await ctx.store.conversationOwners(keys)).size).toBe(40);
  });

  it('takes over the conversations and letters of dead instances, once', async () => {
    for (const id of ['a', 'b', 'c']) await ctx.store.heartbeat(id, null, ctx.t.clock.t);
    await ctx.store.claimConversation('k1', 'a', aliveSince());
    await ctx.store.claimConversation('k2', 'a', aliveSince());
    await ctx.store.claimConversation('k3', 'c', aliveSince());
    await ctx.store.postMail({ to_instance: 'a', from_instance: 'c', kind: 'message', body: '{}' });
    ctx.t.clock.t += LEASE + 1;
    await ctx.store.heartbeat('b', null, ctx.t.clock.t);
    await ctx.store.heartbeat('c', null, ctx.t.clock.t);
    const [first, second] = await Promise.all([ctx.store.takeOverDead('b', aliveSince()), ctx.store.takeOverDead('c', aliveSince())]);
    const winner = first.keys.length > 0 ? first : second;
    const loser = winner === first ? second : first;
    expect(winner).toEqual({ instances: ['a'], keys: ['k1', 'k2'] });
    expect(loser).toEqual({ instances: [], keys: [] });
    const taker = winner === first ? 'b' : 'c';
    expect(await ctx.store.conversationsOwnedBy(taker)).toEqual(taker === 'c' ? ['k1', 'k2', 'k3'] : ['k1', 'k2']);
    expect((await ctx.store.takeMail(taker)).map((m) => m.kind)).toEqual(['message']);
    expect((await ctx.store.listInstances()).map((i) => i.instance_id)).toEqual(['b', 'c']);
  });

  it('keeps letters in order and hands each over once', async () => {
    await ctx.store.postMail({ to_instance: 'a', from_instance: 'b', kind: 'message', body: '1' });
    await ctx.store.postMail({ to_instance: 'b', from_instance: 'a', kind: 'message', body: 'x' });
    await ctx.store.postMail({ to_instance: 'a', from_instance: 'b', kind: 'action', body: '2' });
    expect((await ctx.store.takeMail('a')).map((m) => [m.kind, m.body, m.from_instance])).toEqual([['message', '1', 'b'], ['action', '2', 'b']]);
    expect(await ctx.store.takeMail('a')).toEqual([]);
  });

  it('frees a leaving instance\'s conversations at once', async () => {
    await ctx.store.heartbeat('a', null, ctx.t.clock.t);
    await ctx.store.heartbeat('b', null, ctx.t.clock.t);
    await ctx.store.claimConversation('k', 'a', aliveSince());
    await ctx.store.leaveCluster('a');
    expect(await ctx.store.claimConversation('k', 'b', aliveSince())).toBe('b');
  });

  it('fails at start only the unfinished schedule runs no live instance fired, and a taker fails those of the dead', async () => {
    const ref = { project_id: 'p', agent_id: 'g', schedule_name: 's' };
    const ofA = await ctx.store.addScheduleRun(ref, 1, 'queued', ctx.t.clock.t, { instance_id: 'a' });
    const ofB = await ctx.store.addScheduleRun(ref, 2, 'queued', ctx.t.clock.t, { instance_id: 'b' });
    const cli = await ctx.store.addScheduleRun(ref, 3, 'queued', ctx.t.clock.t);
    expect((await ctx.store.failUnfinishedScheduleRuns('gone', ctx.t.clock.t, ['b'])).map((r) => r.id)).toEqual([ofA!.id, cli!.id]);
    expect((await ctx.store.getScheduleRun(ofB!.id))?.status).toBe('queued');
    expect((await ctx.store.failScheduleRunsOf(['b'], 'b stopped', ctx.t.clock.t)).map((r) => [r.id, r.error])).toEqual([[ofB!.id, 'b stopped']]);
  });

  it('lets one instance adopt a run the CLI queued', async () => {
    const ref = { project_id: 'p', agent_id: 'g', schedule_name: 's' };
    const run = await ctx.store.addScheduleRun(ref, 1, 'queued', ctx.t.clock.t);
    expect(run?.instance_id).toBeNull();
    const claims = await Promise.all([ctx.store.claimScheduleRun(run!.id, 'a'), ctx.store.claimScheduleRun(run!.id, 'b')]);
    expect(claims.filter(Boolean)).toHaveLength(1);
  });

  it('resets busy sessions of the given conversations and their subagents only', async () => {
    const mk = async (id: string, key: string | null, parent: string | null = null) => {
      await ctx.store.createSession({ session_id: id, project_id: 'p', agent_id: 'g', parent_session_id: parent, binding_key: key, created_at: ctx.t.clock.t });
      await ctx.store.updateSession(id, { status: 'running' });
    };
    await mk('s1', 'k1');
    await mk('s1-sub', null, 's1');
    await mk('s2', 'k2');
    expect(await ctx.store.resetBusySessions(new Set(['k1']))).toEqual(['s1', 's1-sub']);
    expect((await ctx.store.getSession('s2'))?.status).toBe('running');
  });
});
