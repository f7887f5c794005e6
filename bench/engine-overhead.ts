/**
 * Engine benchmark (gateway.md §11, not a test): per-message overhead of the context engine over simply
 * producing the same model and tool messages, for a ~10,000-message Task traced to disk by the real
 * TraceWriter; and the time to resume (read + positional replay) a 10,000-record trace. Returns medians.
 * Run after a build: `node dist/bench/engine-overhead.js [messages] [runs]`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as b from '../src/core/omnimessage/builders';
import type {
  EnvironmentInterface, GenerativeModelParameters, LLMInterface, LLMOutcome, ModelFactory, ToolDefinition, ToolExecutionRequest,
} from '../src/core/interfaces';
import type { OmniMessage } from '../src/core/omnimessage/types';
import { ContextEngine } from '../src/core/engine/context-engine';
import { replayTrace } from '../src/core/engine/replay';
import { readLatestTrace } from '../src/core/trace/reader';
import { TraceWriter } from '../src/core/trace/writer';

export interface EngineBenchOptions {
  /** Stream messages in the measured Task (default 10000). */
  messages?: number;
  /** Trace records in the resumed trace (default 10000). */
  traceRecords?: number;
  /** Repetitions; medians are reported (default 5). */
  runs?: number;
  /** Text deltas per model turn (default 20). */
  deltasPerTurn?: number;
}

export interface EngineBenchResult {
  messages: number;
  turns: number;
  /** Median wall time of producing the messages without the engine. */
  baselineMs: number;
  /** Median wall time of the same Task through the engine, traced to disk. */
  engineMs: number;
  /** (engine − baseline) / messages, in microseconds. */
  overheadUsPerMessage: number;
  /** The same without a trace sink: the loop's own share. */
  engineNoTraceMs: number;
  overheadNoTraceUsPerMessage: number;
  traceRecords: number;
  /** Median time to read and replay the trace (what `resumeSession` does before building the Session). */
  resumeMs: number;
  /** Of which: the replay alone. */
  replayMs: number;
}

const SESSION = 'session-2030-01-01-00-00-00-0000bead';
const USAGE = { cache_read: 10, cache_write: 20, output: 30, total: 60 };

/** A model that answers `turns` requests with a streamed text and one tool call, then a final text. */
class BenchModel implements LLMInterface {
  private n = 0;
  constructor(private readonly turns: number, private readonly deltas: number) {}
  async *streamGenerate(_p: GenerativeModelParameters): AsyncGenerator<OmniMessage, LLMOutcome> {
    const i = this.n++;
    yield b.partialText('start');
    let text = '';
    for (let d = 0; d < this.deltas; d++) {
      const piece = `token${d} `;
      text += piece;
      yield b.partialText('delta', piece);
    }
    yield b.partialText('stop');
    yield b.assistantText(text);
    if (i < this.turns - 1) {
      const id = `call_${i}`;
      yield b.partialToolCall('start', id, 'read_file');
      yield b.partialToolCall('delta', id, '', '{"file_path":"a.txt"}');
      yield b.partialToolCall('stop', id);
      yield b.toolCall({ name: 'read_file', arguments: '{"file_path":"a.txt"}', tool_call_id: id, stop_reason: 'completed' });
    }
    yield b.tokenUsage(USAGE, USAGE);
    return { status: 'completed' };
  }
}

class BenchEnvironment implements EnvironmentInterface {
  async listTools(): Promise<ToolDefinition[]> {
    return [{ name: 'read_file', description: 'read a file' }];
  }
  toolPermission(): 'r' {
    return 'r';
  }
  async *executeTool(req: ToolExecutionRequest): AsyncGenerator<OmniMessage> {
    const id = req.toolCall.payload.tool_call_id;
    yield b.partialToolCallOutput('start', id);
    yield b.partialToolCallOutput('delta', id, 'line 1\nline 2\n');
    yield b.partialToolCallOutput('stop', id);
    yield b.toolCallOutput({ output: 'line 1\nline 2\n', tool_call_id: id });
  }
}

/** Stream messages per turn through the engine: request_begin/end, model messages, approval, tool output. */
const perTurn = (deltas: number): number => 2 + (deltas + 3) + 4 + 1 + 1 + 4;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, c) => a - c);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function baseline(turns: number, deltas: number): Promise<number> {
  const model = new BenchModel(turns, deltas);
  const env = new BenchEnvironment();
  let count = 0;
  for (let t = 0; t < turns; t++) {
    let call: OmniMessage | undefined;
    for await (const m of model.streamGenerate({ newMessages: [] })) {
      count++;
      if (m.type === 'model_msg' && m.payload.type === 'tool_call') call = m;
    }
    if (call) for await (const _o of env.executeTool({ toolCall: call as never })) count++;
  }
  return count;
}

async function throughEngine(dir: string | undefined, turns: number, deltas: number): Promise<{ count: number; engine: ContextEngine }> {
  const model = new BenchModel(turns, deltas);
  const models: ModelFactory = { create: () => model };
  const meta = b.sessionMeta({ session_id: SESSION, provider: 'bench', model_id: 'bench', model_context_window: 128000, system_prompt: 'bench', agent_state: '/bench', workspace: '/bench' });
  const engine = new ContextEngine({
    environment: new BenchEnvironment(),
    models: () => models,
    ...(dir ? { trace: new TraceWriter({ tracesDir: dir, sessionId: SESSION }) } : {}),
    sessionMeta: meta,
    metaFirst: true,
  });
  let count = 0;
  for await (const _m of engine.run([b.userText('go')], { approve: async () => 'allow' })) count++;
  await engine.flush();
  return { count, engine };
}

export async function runEngineBench(opts: EngineBenchOptions = {}): Promise<EngineBenchResult> {
  const messages = opts.messages ?? 10000;
  const runs = opts.runs ?? 5;
  const deltas = opts.deltasPerTurn ?? 20;
  const turns = Math.max(1, Math.round(messages / perTurn(deltas)));
  const root = await mkdtemp(join(tmpdir(), 'pg-bench-'));
  try {
    const base: number[] = [];
    const eng: number[] = [];
    const bare: number[] = [];
    let streamed = 0;
    for (let r = 0; r < runs + 1; r++) {
      let t0 = performance.now();
      await baseline(turns, deltas);
      const tb = performance.now() - t0;
      const dir = join(root, `run-${r}`);
      t0 = performance.now();
      const { count } = await throughEngine(dir, turns, deltas);
      const te = performance.now() - t0;
      t0 = performance.now();
      await throughEngine(undefined, turns, deltas);
      const tn = performance.now() - t0;
      streamed = count;
      if (r > 0) {
        // the first round warms up the JIT and the file system
        base.push(tb);
        eng.push(te);
        bare.push(tn);
      }
    }

    // A trace with ≥ traceRecords records: traced records per turn ≈ 8 (text, call, decision, output, usage, begin, end…).
    const wantRecords = opts.traceRecords ?? 10000;
    const traceDir = join(root, 'resume');
    await throughEngine(traceDir, Math.ceil(wantRecords / 7), 2);
    const resume: number[] = [];
    const replay: number[] = [];
    let records = 0;
    for (let r = 0; r < runs + 1; r++) {
      const t0 = performance.now();
      const read = await readLatestTrace(traceDir, SESSION);
      if (!read.ok) throw new Error(read.error.message);
      const t1 = performance.now();
      const state = replayTrace(read.file.messages, { fileIndex: read.file.index });
      const t2 = performance.now();
      records = read.file.messages.length + 1;
      if (state.history.length === 0) throw new Error('bench trace replayed to an empty history');
      if (r > 0) {
        resume.push(t2 - t0);
        replay.push(t2 - t1);
      }
    }
    const baselineMs = median(base);
    const engineMs = median(eng);
    return {
      messages: streamed,
      turns,
      baselineMs: round(baselineMs),
      engineMs: round(engineMs),
      overheadUsPerMessage: round(((engineMs - baselineMs) * 1000) / streamed),
      engineNoTraceMs: round(median(bare)),
      overheadNoTraceUsPerMessage: round(((median(bare) - baselineMs) * 1000) / streamed),
      traceRecords: records,
      resumeMs: round(median(resume)),
      replayMs: round(median(replay)),
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const round = (n: number): number => Math.round(n * 100) / 100;

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const messages = argv[0] ? Number(argv[0]) : undefined;
  const runs = argv[1] ? Number(argv[1]) : undefined;
  const result = await runEngineBench({ ...(messages ? { messages } : {}), ...(runs ? { runs } : {}) });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exitCode = 1;
  });
}
