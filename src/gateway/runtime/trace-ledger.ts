/**
 * TraceLedger: keeps the index in step with what reaches the traces, so the live index and a reindex
 * from the files agree by construction. Fed by every agent's `onTraceWritten`, it records a usage row for
 * each `token_usage` and failed `request_end` (compaction attempts included: they are trace-only), gives a
 * subagent its own session row, and moves `last_active_at` to the newest traced record. A session's batches
 * are applied in order, one at a time, and sessions side by side, so the writes of many share a commit; a
 * store failure is logged and never reaches the engine.
 */
import type { TracedSessionInfo } from '../../core/agent';
import { isPayload } from '../../core/omnimessage/guards';
import type { OmniMessage } from '../../core/omnimessage/types';
import type { GatewayMetrics } from '../admin/metrics';
import type { Logger } from '../logger';
import { usageRowFromMessage, type GatewayStore, type SessionRow } from '../store';

interface Known {
  /** Top-level session this one's usage is attributed to. */
  top: string;
  lastActive: number;
}

/** How many sessions' attribution is remembered; older ones are looked up again when they trace. */
const REMEMBERED = 10_000;

export class TraceLedger {
  /** Per session with batches not yet applied, the last of them. */
  private readonly chains = new Map<string, Promise<void>>();
  private readonly known = new Map<string, Known>();

  constructor(private readonly o: { store: GatewayStore; logger: Logger; metrics?: GatewayMetrics }) {}

  /** The `onTraceWritten` of the agent (project, agent). */
  observer(projectId: string, agentId: string): (msgs: readonly OmniMessage[], who: TracedSessionInfo) => void {
    return (msgs, who) => {
      const id = who.sessionId;
      const chain = (this.chains.get(id) ?? Promise.resolve())
        .then(() => this.apply(projectId, agentId, msgs, who))
        .catch((err: unknown) => this.o.logger.warn({ err, sessionId: id }, 'trace ledger: index not updated'))
        .finally(() => {
          if (this.chains.get(id) === chain) this.chains.delete(id);
        });
      this.chains.set(id, chain);
    };
  }

  /** Resolves once every batch handed over so far is in the index. */
  async settled(): Promise<void> {
    while (this.chains.size > 0) await Promise.all(this.chains.values());
  }

  private async apply(projectId: string, agentId: string, msgs: readonly OmniMessage[], who: TracedSessionInfo): Promise<void> {
    const { store } = this.o;
    const id = who.sessionId;
    let newest = 0;
    for (const m of msgs) {
      const ts = Date.parse(m.timestamp);
      if (!Number.isNaN(ts) && ts > newest) newest = ts;
    }
    let k = this.known.get(id);
    if (!k) {
      let row = await store.getSession(id);
      const meta = msgs.find((m) => m.type === 'session_meta');
      if (!row && who.parentSessionId && meta) {
        const created = Date.parse(meta.timestamp);
        await store.upsertTracedSession({ session_id: id, project_id: projectId, agent_id: agentId, parent_session_id: who.parentSessionId, created_at: created, last_active_at: newest });
        row = await store.getSession(id);
      }
      if (!row) return;
      k = { top: await this.topOf(row), lastActive: row.last_active_at };
      this.remember(id, k);
    }
    if (newest > k.lastActive) {
      k.lastActive = newest;
      await store.updateSession(id, { last_active_at: newest });
    }
    const billed = msgs.filter((m) => isPayload(m, 'token_usage') || (isPayload(m, 'request_end') && m.payload.status !== 'completed'));
    if (billed.length === 0) return;
    const topRow = await store.getSession(k.top);
    if (!topRow) return;
    for (const m of billed) {
      const row = usageRowFromMessage(m, {
        project_id: topRow.project_id,
        agent_id: topRow.agent_id,
        session_id: topRow.session_id,
        origin_session_id: topRow.session_id === id ? null : id,
        route: topRow.route,
        platform: topRow.platform,
        provider: who.provider,
        model_id: who.modelId,
      });
      if (!row) continue;
      this.o.metrics?.modelRequest(isPayload(m, 'request_end') ? m.payload.status : 'completed');
      await store.recordUsage(row);
    }
  }

  private async topOf(row: SessionRow): Promise<string> {
    const seen = new Set([row.session_id]);
    let cur = row;
    while (cur.parent_session_id && !seen.has(cur.parent_session_id)) {
      seen.add(cur.parent_session_id);
      const parent = await this.o.store.getSession(cur.parent_session_id);
      if (!parent) return cur.parent_session_id;
      cur = parent;
    }
    return cur.session_id;
  }

  private remember(id: string, k: Known): void {
    if (this.known.size >= REMEMBERED) this.known.delete(this.known.keys().next().value as string);
    this.known.set(id, k);
  }
}
