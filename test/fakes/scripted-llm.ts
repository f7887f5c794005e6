/**
 * A scripted stand-in for the stateful model (engine.md §3). Each request takes the next scripted turn:
 * messages to yield (optionally stopping at a gate — an external promise or the request's abort signal —
 * before yielding the rest) and an outcome. It records every request's newMessages, and in strict mode
 * checks them the way a provider would (one role, every committed tool call answered exactly once, no
 * stray outputs); a violation is recorded and answered with a permanent failure. History grows only on
 * completed requests, exactly like the real model.
 */
import * as b from '../../src/core/omnimessage/builders';
import type { GenerativeModelParameters, LLMInterface, LLMOutcome, ModelFactory, ThinkingLevel } from '../../src/core/interfaces';
import type { OmniMessage, TokenCounts } from '../../src/core/omnimessage/types';

export interface ScriptedTurn {
  /** Messages yielded in order. */
  messages?: OmniMessage[];
  /** After `messages`: wait for this promise, or for the request's abort ('abort'), then yield `after`. */
  gate?: Promise<unknown> | 'abort';
  after?: OmniMessage[];
  outcome?: LLMOutcome;
  /** Request counts of the token_usage appended to completed turns; false = none. Default {total: 100}. */
  usage?: Partial<TokenCounts> | false;
  /** Called with the request before anything is yielded. */
  onRequest?: (req: RecordedRequest) => void;
}

export interface RecordedRequest {
  /** Index of the model object (0 = first context; compaction creates the next). */
  llm: number;
  newMessages: OmniMessage[];
  thinkingLevel?: ThinkingLevel;
}

const counts = (c: Partial<TokenCounts>): TokenCounts => {
  const r = { cache_read: c.cache_read ?? 0, cache_write: c.cache_write ?? 0, output: c.output ?? 0, total: 0 };
  r.total = c.total ?? r.cache_read + r.cache_write + r.output;
  return r;
};

// ---------------------------------------------------------------- message helpers

export function textStream(t: string, stop_reason?: 'completed' | 'failed' | 'aborted'): OmniMessage[] {
  return [b.partialText('start'), b.partialText('delta', t), b.partialText('stop', '', stop_reason), b.assistantText(t, stop_reason ? { stop_reason } : {})];
}
export function thinkingStream(t: string): OmniMessage[] {
  return [b.partialThinking('start'), b.partialThinking('delta', t), b.partialThinking('stop'), b.thinking(t)];
}
export function toolCallStream(name: string, id: string, args: Record<string, unknown> = {}): OmniMessage[] {
  const a = JSON.stringify(args);
  return [
    b.partialToolCall('start', id, name),
    b.partialToolCall('delta', id, '', a),
    b.partialToolCall('stop', id),
    b.toolCall({ name, arguments: a, tool_call_id: id, stop_reason: 'completed' }),
  ];
}

/** Turn builders. */
export const turn = {
  text(t: string, o: Partial<ScriptedTurn> = {}): ScriptedTurn {
    return { messages: textStream(t), ...o };
  },
  tools(calls: { name: string; id: string; args?: Record<string, unknown> }[], o: Partial<ScriptedTurn> & { text?: string; thinking?: string } = {}): ScriptedTurn {
    const msgs: OmniMessage[] = [];
    if (o.thinking) msgs.push(...thinkingStream(o.thinking));
    if (o.text) msgs.push(...textStream(o.text));
    for (const c of calls) msgs.push(...toolCallStream(c.name, c.id, c.args));
    const { text: _t, thinking: _th, ...rest } = o;
    return { messages: msgs, ...rest };
  },
  /** A request that fails with `status` after yielding `messages`. */
  fail(status: LLMOutcome['status'], errorMessage?: string, messages: OmniMessage[] = [], permanent?: boolean): ScriptedTurn {
    const outcome: LLMOutcome = { status };
    if (errorMessage !== undefined) outcome.errorMessage = errorMessage;
    if (permanent) outcome.permanent = true;
    return { messages, outcome, usage: false };
  },
  /** Streams a text start + delta, then waits for the abort and closes the segment `aborted`. */
  hangText(prefix: string): ScriptedTurn {
    return {
      messages: [b.partialText('start'), b.partialText('delta', prefix)],
      gate: 'abort',
      after: [b.partialText('stop', '', 'aborted'), b.assistantText(prefix, { stop_reason: 'aborted' })],
      outcome: { status: 'aborted' },
      usage: false,
    };
  },
};

// ---------------------------------------------------------------- the model

function isUserSide(m: OmniMessage): boolean {
  if (m.type !== 'model_msg') return false;
  const p = m.payload;
  return p.type === 'tool_call_output' || p.type === 'image_url' || ((p.type === 'text' || p.type === 'inline_data') && p.role === 'user');
}

function unansweredCalls(history: readonly OmniMessage[]): string[] {
  const calls: string[] = [];
  const answered = new Set<string>();
  for (const m of history) {
    if (m.type !== 'model_msg') continue;
    if (m.payload.type === 'tool_call' && (m.payload.stop_reason ?? 'completed') === 'completed') calls.push(m.payload.tool_call_id);
    if (m.payload.type === 'tool_call_output') answered.add(m.payload.tool_call_id);
  }
  return calls.filter((id) => !answered.has(id));
}

/** Provider-style checks of a whole history: each user turn answers exactly the calls of the assistant turn before it. */
export function historyProblems(history: readonly OmniMessage[]): string[] {
  const problems: string[] = [];
  let open: string[] = [];
  let i = 0;
  while (i < history.length) {
    const user = isUserSide(history[i]);
    const group: OmniMessage[] = [];
    while (i < history.length && isUserSide(history[i]) === user) group.push(history[i++]);
    if (user) {
      const got = group.filter((m) => m.type === 'model_msg' && m.payload.type === 'tool_call_output').map((m) => (m.payload as { tool_call_id: string }).tool_call_id);
      const missing = open.filter((id) => !got.includes(id));
      const stray = got.filter((id) => !open.includes(id));
      if (missing.length) problems.push(`unanswered tool calls ${missing.join(', ')}`);
      if (stray.length) problems.push(`tool outputs without a call: ${stray.join(', ')}`);
      open = [];
    } else {
      if (open.length) problems.push(`assistant turn follows unanswered calls ${open.join(', ')}`);
      open = group.filter((m) => m.type === 'model_msg' && m.payload.type === 'tool_call' && (m.payload.stop_reason ?? 'completed') === 'completed').map((m) => (m.payload as { tool_call_id: string }).tool_call_id);
    }
  }
  return problems;
}

export class ScriptedLLM implements LLMInterface {
  history: OmniMessage[] = [];
  historySet = 0;
  private usageTotal = counts({});

  constructor(
    private readonly factory: ScriptedModels,
    readonly index: number,
  ) {}

  setHistory(history: OmniMessage[]): void {
    this.historySet++;
    this.history = [...history];
    if (this.factory.strict) for (const p of historyProblems(history)) this.factory.violations.push(`setHistory: ${p}`);
  }

  async *streamGenerate(params: GenerativeModelParameters): AsyncGenerator<OmniMessage, LLMOutcome> {
    const req: RecordedRequest = { llm: this.index, newMessages: [...params.newMessages] };
    if (params.thinkingLevel !== undefined) req.thinkingLevel = params.thinkingLevel;
    this.factory.requests.push(req);
    if (this.factory.strict) {
      const problem = this.check(params.newMessages);
      if (problem) {
        this.factory.violations.push(`request ${this.factory.requests.length - 1}: ${problem}`);
        return { status: 'failed', permanent: true, errorMessage: `provider rejected: ${problem}` };
      }
    }
    const t = this.factory.script.shift();
    if (!t) return { status: 'failed', permanent: true, errorMessage: 'scripted LLM: script exhausted' };
    t.onRequest?.(req);
    const produced: OmniMessage[] = [];
    const emit = function* (msgs: OmniMessage[] | undefined) {
      for (const m of msgs ?? []) {
        if (m.type === 'model_msg' && !m.payload.type.startsWith('partial_')) produced.push(m);
        yield m;
      }
    };
    yield* emit(t.messages);
    if (t.gate !== undefined) {
      if (t.gate === 'abort') {
        await new Promise<void>((resolve) => {
          if (!params.signal || params.signal.aborted) return resolve();
          params.signal.addEventListener('abort', () => resolve(), { once: true });
        });
      } else {
        await t.gate;
      }
      yield* emit(t.after);
    }
    const outcome = t.outcome ?? { status: 'completed' };
    if (outcome.status === 'completed') {
      if (t.usage !== false) {
        const req2 = counts(t.usage ?? { total: 100 });
        this.usageTotal = counts({ cache_read: this.usageTotal.cache_read + req2.cache_read, cache_write: this.usageTotal.cache_write + req2.cache_write, output: this.usageTotal.output + req2.output, total: this.usageTotal.total + req2.total });
        yield b.tokenUsage(this.usageTotal, req2);
      }
      this.history.push(...params.newMessages, ...produced);
    }
    return outcome;
  }

  private check(input: readonly OmniMessage[]): string | undefined {
    if (input.length === 0) return 'empty input';
    if (!input.every(isUserSide)) return 'mixed roles in one request';
    const want = unansweredCalls(this.history);
    const got = input.filter((m) => m.type === 'model_msg' && m.payload.type === 'tool_call_output').map((m) => (m.payload as { tool_call_id: string }).tool_call_id);
    const missing = want.filter((id) => !got.includes(id));
    if (missing.length) return `unanswered tool calls ${missing.join(', ')}`;
    const stray = got.filter((id) => !want.includes(id));
    if (stray.length) return `tool outputs without a call: ${stray.join(', ')}`;
    if (new Set(got).size !== got.length) return 'duplicate tool outputs';
    return undefined;
  }
}

/** The ModelFactory of a scripted session: every model object it creates draws from the same script. */
export class ScriptedModels implements ModelFactory {
  readonly script: ScriptedTurn[];
  readonly created: ScriptedLLM[] = [];
  readonly requests: RecordedRequest[] = [];
  readonly violations: string[] = [];
  readonly barePrompts: string[] = [];
  strict: boolean;
  bareReply: string | ((prompt: string) => string) = 'A title';

  constructor(script: ScriptedTurn[] = [], opts: { strict?: boolean } = {}) {
    this.script = [...script];
    this.strict = opts.strict ?? true;
  }

  create(): ScriptedLLM {
    const llm = new ScriptedLLM(this, this.created.length);
    this.created.push(llm);
    return llm;
  }

  async bareGenerate(prompt: string): Promise<string> {
    this.barePrompts.push(prompt);
    return typeof this.bareReply === 'function' ? this.bareReply(prompt) : this.bareReply;
  }

  push(...turns: ScriptedTurn[]): void {
    this.script.push(...turns);
  }

  /** The committed history of the current (latest) model object. */
  get current(): ScriptedLLM {
    return this.created[this.created.length - 1];
  }
}
