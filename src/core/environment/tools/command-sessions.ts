/**
 * The Environment's managed command sessions (engine.md §4.4): at most 64 (a new one first evicts exited
 * sessions, then the least recently used idle running one, which is killed), sessions idle for 10 days are
 * swept, `run_in_background` completions are reported through the notice sink (kills never report), and
 * `disposeAll` kills every process group.
 */
import type { BackgroundCommandInfo, BackgroundNotice, CommandSandbox } from '../../interfaces';
import { BACKGROUND_IDLE_TTL_MS, KILL_GRACE_MS, MAX_COMMAND_SESSIONS, REPORT_DETAIL_CHARS, label, tail } from '../limits';
import { CommandSession, exitNote, exitSucceeded } from './command-session';

export interface CommandSessionManagerOptions {
  shell: string;
  /** Every command of this Environment runs under it. */
  sandbox?: CommandSandbox;
  notify: (notice: BackgroundNotice) => void;
  now?: () => number;
  maxSessions?: number;
}

export class CommandSessionManager {
  private readonly sessions = new Map<string, CommandSession>();
  private readonly now: () => number;
  private readonly maxSessions: number;
  private disposed = false;

  constructor(private readonly o: CommandSessionManagerOptions) {
    this.now = o.now ?? Date.now;
    this.maxSessions = o.maxSessions ?? MAX_COMMAND_SESSIONS;
  }

  /** Start a command; throws when the cap is reached and every session is in use. */
  start(input: { cmd: string; cwd: string; env: Record<string, string>; background: boolean }): CommandSession {
    if (this.disposed) throw new Error('the environment is disposed');
    this.sweepIdle();
    if (this.sessions.size >= this.maxSessions) this.evictOne();
    const session = new CommandSession({ ...input, shell: this.o.shell, now: this.now, sandbox: this.o.sandbox });
    this.sessions.set(session.id, session);
    void session.finished.then((exit) => {
      if (!session.background || session.killed || this.disposed) return;
      const facts = exitNote(exit, true);
      const out = session.outputTail();
      const sep = out === '' || out.endsWith('\n') ? '' : '\n';
      this.o.notify({
        kind: 'command',
        id: session.id,
        status: exitSucceeded(exit) ? 'completed' : 'failed',
        label: label(session.cmd),
        detail: tail(out, REPORT_DETAIL_CHARS - facts.length - sep.length) + sep + facts,
      });
    });
    return session;
  }

  get(id: string): CommandSession | undefined {
    const s = this.sessions.get(id);
    if (s) s.lastActivity = this.now();
    return s;
  }

  remove(id: string): void {
    this.sessions.delete(id);
  }

  ids(): string[] {
    return [...this.sessions.keys()];
  }

  list(): BackgroundCommandInfo[] {
    return [...this.sessions.values()].map((s) => ({
      processId: s.id, pid: s.pid, cmd: s.cmd, cwd: s.cwd, startedAt: s.startedAt, running: s.running,
    }));
  }

  /** Terminate (TERM, then KILL after the grace) and forget a session; returns it, or undefined if unknown. */
  async kill(id: string): Promise<CommandSession | undefined> {
    const s = this.sessions.get(id);
    if (!s) return undefined;
    s.killed = true;
    this.sessions.delete(id);
    if (s.running) await s.terminate(KILL_GRACE_MS);
    return s;
  }

  async disposeAll(): Promise<void> {
    this.disposed = true;
    const all = [...this.sessions.values()];
    this.sessions.clear();
    for (const s of all) {
      s.killed = true;
      s.killNow();
    }
    await Promise.all(all.map((s) => s.finished));
  }

  private sweepIdle(): void {
    const cutoff = this.now() - BACKGROUND_IDLE_TTL_MS;
    for (const s of [...this.sessions.values()]) {
      if (s.busy || s.lastActivity > cutoff) continue;
      this.sessions.delete(s.id);
      s.killed = true;
      if (s.running) s.killNow();
    }
  }

  private evictOne(): void {
    const byAge = [...this.sessions.values()].sort((a, b) => a.lastActivity - b.lastActivity);
    const victim = byAge.find((s) => !s.running && !s.busy) ?? byAge.find((s) => !s.busy);
    if (!victim) throw new Error(`too many command sessions (${this.maxSessions}), all in use; kill one with kill_command first`);
    this.sessions.delete(victim.id);
    victim.killed = true;
    if (victim.running) victim.killNow();
  }
}
