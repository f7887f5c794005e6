/**
 * The Environment's managed subagents (engine.md §4.4): at most 8 (a new one evicts the least recently
 * used idle one; running ones are never evicted), idle ones swept after 10 days, ids
 * `subagent-<last 8 of the child session id>`. Rounds that end while no tool call watches a background
 * subagent are reported through the notice sink; kills never report.
 */
import type { BackgroundNotice, SubagentRunner, ThinkingLevel } from '../../interfaces';
import { BACKGROUND_IDLE_TTL_MS, MAX_SUBAGENTS, REPORT_DETAIL_CHARS, label as toLabel, tail } from '../limits';
import { SubagentEntry, type RoundOutcome } from './subagent-entry';

export class SubagentError extends Error {}

export interface SubagentManagerOptions {
  runner?: SubagentRunner;
  notify: (notice: BackgroundNotice) => void;
  now?: () => number;
  maxSubagents?: number;
}

export interface SpawnInput {
  agentId?: string;
  modelId?: string;
  provider?: string;
  thinkingLevel?: ThinkingLevel;
  label: string;
  background: boolean;
}

export const abortedNote = (reason: string) => `[subagent aborted: ${reason}]`;

export class SubagentManager {
  private readonly entries = new Map<string, SubagentEntry>();
  private readonly now: () => number;
  private readonly max: number;
  private disposed = false;

  constructor(private readonly o: SubagentManagerOptions) {
    this.now = o.now ?? Date.now;
    this.max = o.maxSubagents ?? MAX_SUBAGENTS;
  }

  get available(): boolean {
    return this.o.runner !== undefined;
  }

  /** Create a child Session; throws `SubagentError` (cap, no runner) or the runner's precheck error. */
  async spawn(input: SpawnInput): Promise<SubagentEntry> {
    if (this.disposed) throw new SubagentError('the environment is disposed');
    const runner = this.o.runner;
    if (!runner) throw new SubagentError('subagents are not available in this session');
    this.sweepIdle();
    if (this.entries.size >= this.max) this.evictOne();
    const handle = await runner.spawn({ agentId: input.agentId, modelId: input.modelId, provider: input.provider, thinkingLevel: input.thinkingLevel });
    let id = `subagent-${handle.sessionId.slice(-8)}`;
    for (let n = 2; this.entries.has(id); n++) id = `subagent-${handle.sessionId.slice(-8)}-${n}`;
    const entry = new SubagentEntry(id, handle, toLabel(input.label), input.background, this.now, (e, outcome, text) => this.roundEnded(e, outcome, text));
    this.entries.set(id, entry);
    return entry;
  }

  get(id: string): SubagentEntry | undefined {
    const e = this.entries.get(id);
    if (e) e.lastActivity = this.now();
    return e;
  }

  ids(): string[] {
    return [...this.entries.keys()];
  }

  /** Abort, dispose and forget; returns the entry (its undelivered output is still readable). */
  async kill(id: string): Promise<SubagentEntry | undefined> {
    const e = this.entries.get(id);
    if (!e) return undefined;
    this.entries.delete(id);
    if (e.running) await e.stopRound('killed');
    e.handle.dispose();
    return e;
  }

  async disposeAll(): Promise<void> {
    this.disposed = true;
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(all.map(async (e) => {
      if (e.running) await e.stopRound('environment disposed');
      e.handle.dispose();
    }));
  }

  private roundEnded(entry: SubagentEntry, outcome: RoundOutcome, roundText: string): void {
    if (!entry.background || entry.watchers > 0 || this.disposed || !this.entries.has(entry.id)) return;
    entry.takeOutcome();
    const detail = outcome.status === 'completed' ? roundText : `${roundText}${roundText && !roundText.endsWith('\n') ? '\n' : ''}${abortedNote(outcome.reason ?? 'aborted')}`;
    this.o.notify({ kind: 'subagent', id: entry.id, status: outcome.status, label: entry.label, detail: tail(detail, REPORT_DETAIL_CHARS) || '(no text output)' });
  }

  private sweepIdle(): void {
    const cutoff = this.now() - BACKGROUND_IDLE_TTL_MS;
    for (const e of [...this.entries.values()]) {
      if (e.running || e.watchers > 0 || e.lastActivity > cutoff) continue;
      this.entries.delete(e.id);
      e.handle.dispose();
    }
  }

  private evictOne(): void {
    const idle = [...this.entries.values()].filter((e) => !e.running && e.watchers === 0).sort((a, b) => a.lastActivity - b.lastActivity);
    const victim = idle[0];
    if (!victim) throw new SubagentError(`too many subagents (${this.max} running); wait for one or stop it with kill_subagent`);
    this.entries.delete(victim.id);
    victim.handle.dispose();
  }
}
