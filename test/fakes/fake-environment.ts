/**
 * A fake Environment (engine.md §4.1–4.2) with scripted tools: each tool streams its chunks as
 * `partial_tool_call_output` deltas and closes with exactly one complete output, after an optional
 * `before` gate (for reverse finishing order or late outputs), or hangs until aborted, or throws (the
 * contract breach the engine must absorb). `run` tools yield text chunks or whole (origin-tagged)
 * messages, for subagents. Records calls, start/finish order, and lets tests fire background notices.
 */
import * as b from '../../src/core/omnimessage/builders';
import type {
  ApproveFn, BackgroundNotice, EnvironmentInterface, EnvironmentServices, ToolDefinition, ToolExecutionRequest, ToolPermission,
} from '../../src/core/interfaces';
import type { OmniMessage, StopReason } from '../../src/core/omnimessage/types';

export interface ToolRunContext {
  signal?: AbortSignal;
  approve?: ApproveFn;
  services: EnvironmentServices;
  args: Record<string, unknown>;
  toolCallId: string;
}

export interface FakeTool {
  description?: string;
  permission?: ToolPermission;
  chunks?: string[];
  status?: StopReason;
  images?: string[];
  /** Awaited after `start`, before any chunk. */
  before?: (ctx: ToolRunContext) => Promise<void>;
  /** Stream the chunks, then wait for the abort and close `aborted`. */
  hang?: boolean;
  /** Throw this message (after streaming the chunks when `throwAfterChunks`). */
  throws?: string;
  throwAfterChunks?: boolean;
  /** Custom body: strings are output chunks, messages are forwarded as they are. */
  run?: (ctx: ToolRunContext) => AsyncGenerator<string | OmniMessage, { status?: StopReason } | void>;
}

export class FakeEnvironment implements EnvironmentInterface {
  readonly calls: ToolExecutionRequest[] = [];
  readonly started: string[] = [];
  readonly finished: string[] = [];
  disposed = 0;
  listCalls = 0;
  services: EnvironmentServices = {};
  connectEvents: OmniMessage[] = [];
  private readonly done = new Map<string, () => void>();
  private readonly donePromises = new Map<string, Promise<void>>();
  private readonly listeners = new Set<(n: BackgroundNotice) => void>();

  constructor(readonly tools: Record<string, FakeTool> = {}) {}

  async listTools(): Promise<ToolDefinition[]> {
    this.listCalls++;
    return Object.entries(this.tools).map(([name, t]) => ({ name, description: t.description ?? `fake ${name}`, parameters: { type: 'object', properties: {} } }));
  }

  toolPermission(name: string): ToolPermission | undefined {
    const t = this.tools[name];
    return t ? (t.permission ?? 'rw') : undefined;
  }

  async *connect(): AsyncGenerator<OmniMessage> {
    for (const m of this.connectEvents) yield m;
  }

  onBackgroundNotice(listener: (n: BackgroundNotice) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Fire a background completion to every subscriber. */
  notify(n: BackgroundNotice): void {
    for (const l of [...this.listeners]) l(n);
  }

  get subscribers(): number {
    return this.listeners.size;
  }

  /** Resolves once the call's complete output was yielded and taken by the engine. */
  whenDone(toolCallId: string): Promise<void> {
    let p = this.donePromises.get(toolCallId);
    if (!p) {
      p = new Promise<void>((resolve) => this.done.set(toolCallId, resolve));
      this.donePromises.set(toolCallId, p);
    }
    return p;
  }

  dispose(): void {
    this.disposed++;
  }

  async *executeTool(req: ToolExecutionRequest): AsyncGenerator<OmniMessage> {
    this.calls.push(req);
    const { name, tool_call_id: id, arguments: rawArgs } = req.toolCall.payload;
    this.whenDone(id);
    this.started.push(id);
    const finish = (): void => {
      this.finished.push(id);
      this.done.get(id)?.();
    };
    const tool = this.tools[name];
    yield b.partialToolCallOutput('start', id);
    if (!tool) {
      const text = `Unknown tool: ${name}`;
      yield b.partialToolCallOutput('delta', id, text);
      yield b.partialToolCallOutput('stop', id, '', { stop_reason: 'failed' });
      yield b.toolCallOutput({ output: text, tool_call_id: id, stop_reason: 'failed' });
      finish();
      return;
    }
    let args: Record<string, unknown> = {};
    try {
      args = JSON.parse(rawArgs) as Record<string, unknown>;
    } catch {
      args = {};
    }
    const ctx: ToolRunContext = { signal: req.signal, approve: req.approve, services: this.services, args, toolCallId: id };
    if (tool.throws && !tool.throwAfterChunks) throw new Error(tool.throws);
    if (tool.before) await tool.before(ctx);
    let content = '';
    let status: StopReason = tool.status ?? 'completed';
    const chunk = (s: string): OmniMessage => {
      content += s;
      return b.partialToolCallOutput('delta', id, s);
    };
    if (tool.run) {
      const gen = tool.run(ctx);
      for (;;) {
        const r = await gen.next();
        if (r.done) {
          if (r.value && r.value.status) status = r.value.status;
          break;
        }
        if (typeof r.value === 'string') yield chunk(r.value);
        else yield r.value;
      }
    } else {
      for (const c of tool.chunks ?? ['ok']) yield chunk(c);
    }
    if (tool.throws) throw new Error(tool.throws);
    if (tool.hang) {
      await new Promise<void>((resolve) => {
        if (!req.signal || req.signal.aborted) return resolve();
        req.signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }
    if (req.signal?.aborted) {
      yield chunk(`${content ? '\n' : ''}[interrupted: tool aborted by user]`);
      status = 'aborted';
    }
    const images = status === 'completed' && tool.images?.length ? tool.images : undefined;
    if (images) yield b.partialToolCallOutput('delta', id, '', { images });
    yield b.partialToolCallOutput('stop', id, '', { stop_reason: status });
    yield b.toolCallOutput({ output: content, images, tool_call_id: id, stop_reason: status });
    finish();
  }
}
