/**
 * Shared scaffolding for engine and agent tests: a fake clock (instant or hand-released sleeps), stream
 * collection, temp trace directories that are removed after each test, and an engine wired to the
 * scripted model, the fake Environment and a real TraceWriter.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as b from '../../../src/core/omnimessage/builders';
import type { OmniMessage, PayloadType } from '../../../src/core/omnimessage/types';
import type { Clock } from '../../../src/core/engine/clock';
import { ContextEngine, type ContextEngineOptions } from '../../../src/core/engine/context-engine';
import { readAllTraces } from '../../../src/core/trace/reader';
import { TraceWriter } from '../../../src/core/trace/writer';
import { ScriptedModels, type ScriptedTurn } from '../../fakes/scripted-llm';
import { FakeEnvironment, type FakeTool } from '../../fakes/fake-environment';

export class FakeClock implements Clock {
  nowMs = 0;
  readonly sleeps: number[] = [];
  private readonly waiting: { ms: number; resolve: () => void }[] = [];
  private onSleep?: () => void;

  constructor(public mode: 'instant' | 'manual' = 'instant') {}

  now(): number {
    return this.nowMs;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    if (this.mode === 'instant' || signal?.aborted) {
      if (!signal?.aborted) this.nowMs += ms;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const w = { ms, resolve };
      this.waiting.push(w);
      signal?.addEventListener('abort', () => {
        const i = this.waiting.indexOf(w);
        if (i >= 0) this.waiting.splice(i, 1);
        resolve();
      }, { once: true });
      const cb = this.onSleep;
      this.onSleep = undefined;
      cb?.();
    });
  }

  get pending(): number {
    return this.waiting.length;
  }

  /** Let the oldest waiting sleep finish. */
  release(): void {
    const w = this.waiting.shift();
    if (!w) throw new Error('no sleep is waiting');
    this.nowMs += w.ms;
    w.resolve();
  }

  /** Resolves when a sleep starts waiting (or at once if one is). */
  sleeping(): Promise<void> {
    if (this.waiting.length > 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.onSleep = resolve;
    });
  }
}

export async function collect(gen: AsyncIterable<OmniMessage>, onMsg?: (m: OmniMessage, all: OmniMessage[]) => void): Promise<OmniMessage[]> {
  const out: OmniMessage[] = [];
  for await (const m of gen) {
    out.push(m);
    onMsg?.(m, out);
  }
  return out;
}

export const user = (t: string): OmniMessage => b.userText(t);

/** payload types in order (session_meta shown as 'session_meta'). */
export const types = (msgs: readonly OmniMessage[]): string[] => msgs.map((m) => (m.type === 'session_meta' ? 'session_meta' : m.payload.type));

export function ofType<K extends PayloadType>(msgs: readonly OmniMessage[], t: K): OmniMessage[] {
  return msgs.filter((m) => m.type !== 'session_meta' && m.payload.type === t);
}

export function payload<T = Record<string, unknown>>(m: OmniMessage): T {
  return m.payload as unknown as T;
}

/** Temp dirs made by a test file, removed in afterEach. */
export class TempDirs {
  private dirs: string[] = [];
  async make(prefix = 'pg-engine-'): Promise<string> {
    const d = await mkdtemp(join(tmpdir(), prefix));
    this.dirs.push(d);
    return d;
  }
  async cleanup(): Promise<void> {
    const ds = this.dirs;
    this.dirs = [];
    await Promise.all(ds.map((d) => rm(d, { recursive: true, force: true })));
  }
}

export const SESSION_ID = 'session-2026-01-02-03-04-05-0badcafe';

export interface Rig {
  engine: ContextEngine;
  models: ScriptedModels;
  env: FakeEnvironment;
  clock: FakeClock;
  writer: TraceWriter;
  tracesDir: string;
  /** Every trace record of the session, files in order (heads included). */
  trace(): Promise<OmniMessage[]>;
  traceFiles(): Promise<OmniMessage[][]>;
}

export async function rig(
  dirs: TempDirs,
  o: { script?: ScriptedTurn[]; tools?: Record<string, FakeTool>; clock?: FakeClock; engine?: Partial<ContextEngineOptions>; strict?: boolean } = {},
): Promise<Rig> {
  const tracesDir = await dirs.make();
  const models = new ScriptedModels(o.script ?? [], { strict: o.strict ?? true });
  const env = new FakeEnvironment(o.tools ?? {});
  const clock = o.clock ?? new FakeClock();
  const writer = new TraceWriter({ tracesDir, sessionId: SESSION_ID });
  const meta = b.sessionMeta({
    session_id: SESSION_ID, provider: 'fake', model_id: 'scripted', model_context_window: 128000,
    system_prompt: 'You are a test.', agent_state: '/tmp/agent_state', workspace: '/tmp/ws',
  });
  const engine = new ContextEngine({
    environment: env,
    models: () => models,
    trace: writer,
    sessionMeta: meta,
    metaFirst: true,
    clock,
    sessionId: SESSION_ID,
    ...o.engine,
  });
  const traceFiles = async (): Promise<OmniMessage[][]> => {
    await engine.flush();
    const r = await readAllTraces(tracesDir, SESSION_ID);
    return r.files.map((f) => [f.meta, ...f.messages]);
  };
  return { engine, models, env, clock, writer, tracesDir, traceFiles, trace: async () => (await traceFiles()).flat() };
}
