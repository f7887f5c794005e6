/**
 * GenerativeModel: `LLMInterface` for any OpenAI-compatible Chat Completions endpoint (engine.md §3), on the
 * `openai` SDK with `maxRetries: 0` — the engine owns retries. Stateful: it keeps the committed history and
 * receives only each turn's new messages; a turn is committed only when its stream completed and validated.
 * Never throws and never retries: every way out closes the open segments and RETURNS an `LLMOutcome`.
 * Provider details (wire format, reasoning fields, usage shape, error types) stay inside this folder.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type OpenAI from 'openai';
import * as b from '../omnimessage/builders';
import { addCounts, estimateMessagesTokens, estimateTextTokens, textCounts, tokensOfCounts, zeroCounts, type TextCounts } from '../omnimessage/tokens';
import type { CompleteMessage, OmniMessage, TokenCounts, ToolDefinition } from '../omnimessage/types';
import type { GenerativeModelConfig, GenerativeModelParameters, LLMInterface, LLMOutcome, ThinkingLevel, ToolCallIdRegistry } from '../interfaces';
import { chunksOf, jsonPieces, sharedItemsJson, type JsonPiece } from '../json-splice';
import { classifyError } from './classify';
import { ChunkedBody, nodeBodyOf } from './model-fetch';
import { openaiSdk } from './openai-sdk';
import { sharedClient } from './openai-client';
import { outputCap } from './output-cap';
import { raceUpstream, type UpstreamResult } from './race';
import { SseJsonReader, type SseRead } from './sse-reader';
import { ChatStreamTranslator, type ChunkLike } from './stream-translator';
import { groupByRole, toWireMessages, turnInput, type WireMessage } from './to-chat';
import { ToolCallIdAllocator } from './tool-call-ids';
import { usageToCounts } from './usage';

export const DEFAULT_REQUEST_TIMEOUT_MS = 120000;
export { CHAT_CLIENT_TYPES } from './openai-client';

export interface OpenAIChatModelConfig extends GenerativeModelConfig {
  /** The endpoint accepts `reasoning_effort`; only then is the thinking level sent. Default false. */
  reasoningEffort?: boolean;
  /** Session token totals to continue from (a model rebuilt by compaction or resume keeps them). */
  sessionUsage?: TokenCounts;
  /** The system prompt's token estimate, when known: the model then does not scan the prompt to size its context. */
  systemPromptTokens?: number;
  /** `JSON.stringify(systemPrompt)` as UTF-8, when the caller has it encoded: the request splices it in. */
  systemPromptJson?: () => readonly JsonPiece[];
}

/** The request body this model sends (a superset of the SDK's streaming params: reasoning fields on messages). */
export interface ChatRequestBody {
  model: string;
  messages: WireMessage[];
  stream: true;
  stream_options: { include_usage: true };
  tools?: { type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } }[];
  max_completion_tokens?: number;
  reasoning_effort?: ThinkingLevel;
  service_tier?: 'priority';
}

type WireTool = NonNullable<ChatRequestBody['tools']>[number];
const wireTools = new WeakMap<ToolDefinition, WireTool>();

const wireToolCounts = new WeakMap<WireTool, TextCounts>();

/** The estimate of `JSON.stringify(tools)`, from each wire tool's counts (taken once) plus the brackets and commas. */
function toolsTokens(tools: readonly WireTool[]): number {
  const sum = { ascii: tools.length + 1, other: 0 };
  for (const w of tools) {
    let c = wireToolCounts.get(w);
    if (!c) {
      c = textCounts(JSON.stringify(w));
      wireToolCounts.set(w, c);
    }
    sum.ascii += c.ascii;
    sum.other += c.other;
  }
  return tokensOfCounts(sum);
}

/** The wire form of a tool definition, made once per definition object (every session offers the same ones). */
function wireTool(t: ToolDefinition): WireTool {
  let w = wireTools.get(t);
  if (!w) {
    w = { type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters ?? { type: 'object', properties: {} } } };
    wireTools.set(t, w);
  }
  return w;
}

export class GenerativeModel implements LLMInterface {
  private readonly client: OpenAI | undefined;
  /** A configuration problem every request reports instead of calling out. */
  private readonly setupFailure: LLMOutcome | undefined;
  private readonly ids: ToolCallIdRegistry;
  private readonly idleMs: number;
  private readonly tools: ChatRequestBody['tools'];
  private history: CompleteMessage[] = [];
  private session: TokenCounts;
  /** Estimated size of the context before the next turn's input: last `request.total`, seeded from the fixed prefix. */
  private contextTokens: number;
  private readonly prefixTokens: number;

  constructor(private readonly config: OpenAIChatModelConfig) {
    this.ids = config.toolCallIds ?? new ToolCallIdAllocator();
    this.idleMs = config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.session = { ...(config.sessionUsage ?? zeroCounts()) };
    this.tools = config.tools.length > 0 ? config.tools.map(wireTool) : undefined;
    this.prefixTokens = (config.systemPromptTokens ?? estimateTextTokens(config.systemPrompt ?? '')) + (this.tools ? toolsTokens(this.tools) : 0);
    this.contextTokens = this.prefixTokens;
    const made = sharedClient(config);
    if (made.ok) this.client = made.client;
    else this.setupFailure = made.failure;
  }

  /** Running token totals of the Session as seen by this model (seed + every completed request). */
  get sessionUsage(): TokenCounts {
    return { ...this.session };
  }

  setHistory(history: OmniMessage[]): void {
    this.history = groupByRole(history).flatMap((g) => g.messages);
    for (const m of this.history) {
      const p = m.payload;
      if (p.type === 'tool_call' || p.type === 'tool_call_output') this.ids.seed(p.tool_call_id);
    }
    this.contextTokens = this.prefixTokens + estimateMessagesTokens(this.history);
  }

  /** The body for one turn (exposed for tests of the wire mapping). */
  buildRequest(newMessages: CompleteMessage[], thinkingLevel?: ThinkingLevel): ChatRequestBody {
    const c = this.config;
    const messages: WireMessage[] = [];
    if (c.systemPrompt) messages.push({ role: 'system', content: c.systemPrompt });
    messages.push(...toWireMessages(groupByRole([...this.history, ...newMessages]), { vision: c.vision ?? true, ids: this.ids }));
    const body: ChatRequestBody = { model: c.modelId, messages, stream: true, stream_options: { include_usage: true } };
    if (this.tools) body.tools = this.tools;
    const cap = outputCap(c.maxTokens, c.contextWindow, this.contextTokens + estimateMessagesTokens(newMessages));
    if (cap !== undefined) body.max_completion_tokens = cap;
    const level = thinkingLevel ?? c.thinkingLevel;
    if (c.reasoningEffort && level !== undefined) body.reasoning_effort = level;
    if (c.fastMode) body.service_tier = 'priority';
    return body;
  }

  /**
   * `JSON.stringify(body)` as UTF-8 chunks, with the system prompt's JSON spliced in when the caller has it
   * encoded and each tool's taken from its cache: the prompt and tools are most of every request's bytes,
   * and go to the socket as the shared buffers they are.
   */
  encodeRequest(body: ChatRequestBody): ChunkedBody {
    const given: Record<string, JsonPiece[]> = {};
    const [first, ...rest] = body.messages;
    const promptJson = this.config.systemPromptJson;
    if (first && first.role === 'system' && promptJson) {
      const system = jsonPieces(first, { content: promptJson() });
      given.messages = rest.length > 0 ? ['[', ...system, `,${JSON.stringify(rest).slice(1)}`] : ['[', ...system, ']'];
    }
    // Every request of every session offers the same wire tools: each is encoded once.
    if (body.tools) given.tools = sharedItemsJson(body.tools);
    const { chunks, size } = chunksOf(jsonPieces(body, given));
    return new ChunkedBody(chunks, size);
  }

  async *streamGenerate(params: GenerativeModelParameters): AsyncGenerator<OmniMessage, LLMOutcome> {
    const signal = params.signal;
    if (signal?.aborted) return { status: 'aborted' };
    const input = turnInput(params.newMessages);
    if (!input.ok) return { status: 'failed', errorMessage: input.error };
    if (this.setupFailure || !this.client) return this.setupFailure ?? { status: 'failed', errorMessage: 'model client unavailable' };

    const body = this.buildRequest(input.group.messages, params.thinkingLevel);
    const http = new AbortController();
    const tr = new ChatStreamTranslator(this.ids);
    const fastMode = this.config.fastMode === true;
    /** Close the open segments and end with `outcome` (an interruption or failure). */
    const fail = function* (outcome: LLMOutcome): Generator<OmniMessage, LLMOutcome> {
      yield* tr.closeOpen(outcome.status);
      return outcome;
    };
    const interrupted = (r: Exclude<UpstreamResult<unknown>, { kind: 'value' }> | Exclude<SseRead, { kind: 'chunks' | 'end' }>, phase: 'connect' | 'body'): LLMOutcome => {
      if (r.kind === 'abort') return { status: 'aborted', errorMessage: 'aborted by user' };
      if (r.kind === 'timeout') return { status: 'timeout', errorMessage: `no data from the model for ${this.idleMs} ms` };
      return classifyError(r.error, { phase, fastMode });
    };

    let reader: SseJsonReader | undefined;
    /** The response was read to its end: nothing is left open, and an abort would only build and dispatch its errors. */
    let drained = false;
    try {
      // The SDK sends the request and turns an error status into its error; the body is read here.
      // The body goes as chunks (the SDK passes bytes through), so the prompt's and tools' JSON are neither made nor copied again.
      const bytes = this.encodeRequest(body) as unknown as OpenAI.Chat.ChatCompletionCreateParamsStreaming;
      const pending = this.client.chat.completions.create(bytes, { signal: http.signal, headers: { 'content-type': 'application/json' } }).asResponse();
      const opened = await raceUpstream(pending, signal, this.idleMs);
      if (opened.kind !== 'value') return interrupted(opened, 'connect');
      const response = opened.value;
      const stream = nodeBodyOf(response) ?? (response.body ? Readable.fromWeb(response.body as WebReadableStream) : Readable.from([]));
      // A provider's error event is the SDK's APIError, as the SDK's own reader reports it.
      reader = new SseJsonReader(stream, signal, this.idleMs, (error) => new (openaiSdk().APIError)(undefined, error as object, undefined, response.headers));
      for (;;) {
        const r = await reader.next();
        if (r.kind === 'chunks') {
          yield* tr.pushAll(r.chunks as ChunkLike[]);
          if (tr.malformed !== undefined) return yield* fail({ status: 'malformed', errorMessage: tr.malformed });
          continue;
        }
        if (r.kind === 'end') {
          drained = true;
          break;
        }
        // The answer is whole once finish_reason arrived: a later abort, stall or cut loses only the usage report.
        if (tr.finishReason !== undefined) break;
        return yield* fail(interrupted(r, 'body'));
      }
      if (tr.finishReason === undefined) return yield* fail({ status: 'malformed', errorMessage: 'stream ended before finish_reason (truncated)' });
      if (tr.produced.length === 0) return { status: 'malformed', errorMessage: `empty response (finish_reason ${tr.finishReason})` };

      const counts = tr.usage ? usageToCounts(tr.usage) : zeroCounts();
      const session = addCounts(this.session, counts);
      yield b.tokenUsage(session, counts);
      // Committed only once the consumer has taken the whole stream: a turn it abandoned stays uncommitted.
      this.session = session;
      this.history.push(...input.group.messages, ...tr.produced);
      this.contextTokens = counts.total > 0 ? counts.total : this.contextTokens + estimateMessagesTokens(input.group.messages) + estimateMessagesTokens(tr.produced);
      return { status: 'completed' };
    } finally {
      reader?.close();
      // Tears down a request left open by an abort, a stall or an early return of the consumer. Not once drained:
      // there an abort tears down nothing yet makes two AbortErrors with their stacks (ours and the SDK's), ~0.1 ms.
      if (!drained) http.abort();
    }
  }
}
