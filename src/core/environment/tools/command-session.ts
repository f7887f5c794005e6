/**
 * One managed shell command (engine.md §4.4): `<shell> -lc <cmd>` (inside the Session's sandbox, when it
 * has one) as the leader of its own process group, stdout+stderr merged into an unread buffer capped at
 * 1 MiB (oldest text dropped and counted), stdin kept open for `input_command`. `finished` settles once the leader exited and its pipes drained (or a short
 * grace passed, since a background grandchild may hold them open forever).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import { ChangeLatch, sleep } from '../async-utils';
import { REPORT_DETAIL_CHARS, UNREAD_BUFFER_CHARS, tail } from '../limits';
import type { CommandSandbox } from '../../interfaces';
import { launchCommand } from '../sandbox';
import { groupAlive, signalGroup } from './process-group';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  spawnError?: string;
}

export interface CommandSpawnOptions {
  shell: string;
  cmd: string;
  cwd: string;
  env: Record<string, string>;
  /** Report completion through the manager's notice sink. */
  background: boolean;
  now: () => number;
  /** Run under this sandbox (a `refuse` sandbox makes the constructor throw). */
  sandbox?: CommandSandbox;
}

/** How long to wait for the pipes after the leader exits before treating the output as complete. */
const PIPE_DRAIN_MS = 100;

export const newProcessId = () => `proc-${randomBytes(4).toString('hex')}`;

/** `[exit code: N]` / `[terminated by signal S]` / `[spawn error: …]`; exit 0 yields '' unless `showZero`. */
export function exitNote(exit: ExitInfo, showZero = false): string {
  if (exit.spawnError) return `[spawn error: ${exit.spawnError}]`;
  if (exit.signal) return `[terminated by signal ${exit.signal}]`;
  if (exit.code === 0 && !showZero) return '';
  return `[exit code: ${exit.code ?? 'unknown'}]`;
}

export const exitSucceeded = (exit: ExitInfo) => !exit.spawnError && !exit.signal && exit.code === 0;

export class CommandSession {
  readonly id = newProcessId();
  readonly cmd: string;
  readonly cwd: string;
  readonly startedAt: number;
  readonly background: boolean;
  readonly pid: number | null;
  readonly changed = new ChangeLatch();
  readonly finished: Promise<ExitInfo>;
  exit: ExitInfo | null = null;
  /** Killed on request: no completion report. */
  killed = false;
  lastActivity: number;
  private readonly child: ChildProcess;
  private unread: string[] = [];
  private unreadLength = 0;
  private dropped = 0;
  private reportTail = '';
  private lockChain: Promise<void> = Promise.resolve();
  private holders = 0;
  private readonly now: () => number;

  constructor(o: CommandSpawnOptions) {
    this.cmd = o.cmd;
    this.cwd = o.cwd;
    this.background = o.background;
    this.now = o.now;
    this.startedAt = o.now();
    this.lastActivity = this.startedAt;
    const launch = launchCommand(o.sandbox, o.shell, o.cmd, o.cwd);
    this.child = spawn(launch.file, launch.args, { cwd: o.cwd, env: o.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    this.pid = this.child.pid ?? null;
    this.finished = new Promise<ExitInfo>((resolve) => {
      let settled = false;
      const settle = (info: ExitInfo) => {
        if (settled) return;
        settled = true;
        this.exit = info;
        this.child.stdin?.destroy();
        resolve(info);
        this.changed.notify();
      };
      const closed = new Promise<void>((r) => this.child.once('close', () => r()));
      this.child.once('exit', (code, signal) => {
        void Promise.race([closed, sleep(PIPE_DRAIN_MS)]).then(() => settle({ code, signal }));
      });
      this.child.once('error', (err) => {
        if (this.child.pid === undefined) settle({ code: null, signal: null, spawnError: err.message });
      });
    });
    for (const stream of [this.child.stdout, this.child.stderr]) {
      if (!stream) continue;
      const decoder = new StringDecoder('utf8');
      stream.on('data', (chunk: Buffer) => this.push(decoder.write(chunk)));
      stream.on('end', () => this.push(decoder.end()));
      stream.on('error', () => undefined);
    }
    this.child.stdin?.on('error', () => undefined);
  }

  get running(): boolean {
    return this.exit === null;
  }

  /** Whether a tool call currently holds this session. */
  get busy(): boolean {
    return this.holders > 0;
  }

  private push(text: string): void {
    if (!text) return;
    this.lastActivity = this.now();
    this.unread.push(text);
    this.unreadLength += text.length;
    this.reportTail = tail(this.reportTail + text, REPORT_DETAIL_CHARS);
    while (this.unreadLength > UNREAD_BUFFER_CHARS) {
      const over = this.unreadLength - UNREAD_BUFFER_CHARS;
      const first = this.unread[0];
      if (first.length <= over) {
        this.unread.shift();
        this.unreadLength -= first.length;
        this.dropped += first.length;
      } else {
        this.unread[0] = first.slice(over);
        this.unreadLength -= over;
        this.dropped += over;
      }
    }
    this.changed.notify();
  }

  /** Output not yet delivered to a tool call (with a note for text dropped by the cap); clears it. */
  takeUnread(): string {
    const marker = this.dropped ? `[... ${this.dropped} chars of earlier output dropped ...]\n` : '';
    const text = marker + this.unread.join('');
    this.unread = [];
    this.unreadLength = 0;
    this.dropped = 0;
    return text;
  }

  /** The last output (≤4000 chars) for a completion report. */
  outputTail(): string {
    return this.reportTail;
  }

  write(chars: string): boolean {
    const stdin = this.child.stdin;
    if (!this.running || !stdin || stdin.destroyed || !stdin.writable) return false;
    this.lastActivity = this.now();
    stdin.write(chars);
    return true;
  }

  signal(sig: NodeJS.Signals): boolean {
    if (this.pid === null) return false;
    return signalGroup(this.pid, sig);
  }

  /** SIGTERM to the group, SIGKILL after `graceMs` if any member is left; resolves when the leader is done. */
  async terminate(graceMs: number): Promise<ExitInfo> {
    if (this.pid !== null && signalGroup(this.pid, 'SIGTERM')) {
      const deadline = Date.now() + graceMs;
      while (groupAlive(this.pid) && Date.now() < deadline) await sleep(Math.min(50, deadline - Date.now()));
      if (groupAlive(this.pid)) signalGroup(this.pid, 'SIGKILL');
    }
    return this.finished;
  }

  /** Kill the whole group at once (dispose). */
  killNow(): void {
    if (this.pid !== null) signalGroup(this.pid, 'SIGKILL');
  }

  /** Serialize tool calls on this session; resolves to a release function, or null if `signal` aborted first. */
  async acquire(signal?: AbortSignal): Promise<(() => void) | null> {
    const previous = this.lockChain;
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    this.lockChain = previous.then(() => mine);
    this.holders++;
    const got = await Promise.race([previous.then(() => true), new Promise<boolean>((r) => {
      if (signal?.aborted) r(false);
      signal?.addEventListener('abort', () => r(false), { once: true });
    })]);
    let released = false;
    const done = () => {
      if (released) return;
      released = true;
      this.holders--;
      this.lastActivity = this.now();
      release();
    };
    if (!got) {
      done();
      return null;
    }
    return done;
  }
}
