/**
 * The cluster as the gateway process uses it: what a takeover does with a dead peer's conversations (the
 * restart recovery, scoped to them, with the takeover's note; its schedule runs failed) and the requests
 * an owner answers for its peers (the operator stopping a session, deciding an approval).
 */
import * as z from 'zod';
import type { ApprovalBroker } from '../runtime/approval-broker';
import type { FireOutcome } from '../scheduler/fire-runs';
import { tracesDir } from '../../core/trace/paths';
import type { TraceFeed, TraceListener } from '../runtime/trace-feed';
import { tailTrace } from '../runtime/trace-tail';
import { recoverInterruptedReplies, TAKEOVER_CAUSE, TAKEOVER_NOTE, type RecoveryDeps } from '../runtime/restart-recovery';
import type { SessionManager } from '../runtime/session-manager';
import type { GatewayStore } from '../store/types';
import { createCluster, type ClusterDeps, type GatewayCluster } from './index';

export const STOPPED_PEER = 'the gateway instance running it stopped';

const stopArgs = z.object({ id: z.string() });
const decideArgs = z.object({ id: z.string(), decision: z.enum(['allow', 'deny']), actor: z.string() });

export type Decide = (id: string, decision: 'allow' | 'deny', actor: string) => Promise<unknown>;

export interface WiringDeps extends Omit<ClusterDeps, 'recover' | 'requests' | 'held' | 'forget' | 'stopAll'>, RecoveryDeps {
  manager: SessionManager;
  broker: ApprovalBroker;
  decide: Decide;
  /** Runs a schedule fire another instance handed over (Scheduler.fireHandedOver). */
  fireHandedOver(runId: number): Promise<FireOutcome>;
}

const fireArgs = z.object({ runId: z.number().int() });
const outcome = z.union([z.object({ status: z.literal('completed') }), z.object({ status: z.literal('failed'), error: z.string() })]);

/** A fire handed to the instance owning its conversation: its outcome, or why none came back. */
export async function handOverFire(cluster: GatewayCluster, owner: string, runId: number, waitMs: number): Promise<FireOutcome> {
  try {
    const r = outcome.safeParse(await cluster.ask(owner, 'scheduled-fire', { runId }, waitMs));
    return r.success ? r.data : { status: 'failed', error: `instance ${owner} answered the run with something else than an outcome` };
  } catch (err) {
    return { status: 'failed', error: `handed to instance ${owner}, which owns the conversation: ${(err as Error).message}` };
  }
}

/** The conversation (binding key) an approval belongs to: its card's chat, else its session's. */
export async function approvalKey(store: GatewayStore, id: string): Promise<string | null | undefined> {
  const row = await store.getApproval(id);
  if (!row) return undefined;
  return row.card?.chat ?? (await store.getSession(row.session_id))?.binding_key;
}

/**
 * The dashboard's live transcript of a session: the local trace feed while this instance runs it, else
 * the trace files followed as the owning instance writes them (the data dir is shared).
 */
export function watchSessionAnywhere(
  d: { cluster: GatewayCluster; store: GatewayStore; home: string; feed: TraceFeed },
  sessionId: string,
  listener: TraceListener,
): () => void {
  if (!d.cluster.shared) return d.feed.subscribe(sessionId, listener);
  let stop: (() => void) | undefined;
  let done = false;
  void (async () => {
    const row = await d.store.getSession(sessionId);
    if (done || !row) return;
    const remote = await d.cluster.ownedElsewhere(row.binding_key);
    if (done) return;
    stop = remote ? tailTrace(tracesDir(d.home, row.project_id, row.agent_id), sessionId, listener) : d.feed.subscribe(sessionId, listener);
  })().catch(() => undefined);
  return () => {
    done = true;
    stop?.();
  };
}

export function wireCluster(d: WiringDeps): GatewayCluster {
  return createCluster({
    ...d,
    held: () => d.manager.inMemory,
    forget: (key) => d.manager.forget(key),
    stopAll: async (reason) => {
      await Promise.all(d.manager.runningTasks().map((t) => d.manager.stopSession(t.session_id, reason)));
    },
    recover: async (t) => {
      const keys = new Set(t.keys);
      await d.store.resetBusySessions(keys);
      await recoverInterruptedReplies(d, { keys, note: TAKEOVER_NOTE, cause: TAKEOVER_CAUSE });
      const failed = await d.store.failScheduleRunsOf(t.instances, STOPPED_PEER);
      if (failed.length > 0) d.logger.warn({ runs: failed.map((r) => r.id), instances: t.instances }, 'cluster: scheduled runs of stopped instances marked failed');
    },
    requests: {
      'stop-session': async (args) => d.manager.stopSession(stopArgs.parse(args).id),
      'scheduled-fire': async (args) => d.fireHandedOver(fireArgs.parse(args).runId),
      'decide-approval': async (args) => {
        const a = decideArgs.parse(args);
        return d.decide(a.id, a.decision, a.actor);
      },
    },
  });
}
