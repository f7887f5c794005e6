/**
 * Builders for OpenAI Chat Completions stream chunks (`chat.completion.chunk`), used to script the fake
 * OpenAI-compatible server: text, reasoning (either field name), tool calls (sequential or with interleaved
 * argument fragments), finish and usage chunks, and `turnChunks` composing a whole turn in provider order
 * (reasoning → content → tool calls → finish → usage). Fragments are cut every `size` characters.
 */

export interface ChatChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: Record<string, unknown>; finish_reason: string | null }[];
  usage?: Record<string, unknown> | null;
}

export interface ScriptToolCall {
  /** Provider id; omitted ⇒ the fragment carries no id (some providers do that). */
  id?: string;
  name: string;
  arguments: string;
}

export interface UsageSpec {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
}

const CHUNK_ID = 'chatcmpl-fake';
const MODEL = 'fake-model';

export function chunk(delta: Record<string, unknown>, finish_reason: string | null = null): ChatChunk {
  return { id: CHUNK_ID, object: 'chat.completion.chunk', created: 1700000000, model: MODEL, choices: [{ index: 0, delta, finish_reason }], usage: null };
}

/** `s` in pieces of `size` characters (at least one piece, possibly empty). */
export function pieces(s: string, size = 8): string[] {
  if (s === '') return [''];
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

export function textChunks(text: string, opts: { size?: number } = {}): ChatChunk[] {
  return pieces(text, opts.size).map((p, i) => chunk(i === 0 ? { role: 'assistant', content: p } : { content: p }));
}

export function reasoningChunks(text: string, opts: { size?: number; field?: 'reasoning_content' | 'reasoning' } = {}): ChatChunk[] {
  const field = opts.field ?? 'reasoning_content';
  return pieces(text, opts.size).map((p) => chunk({ content: null, [field]: p }));
}

/** Tool-call fragments: the head (index, id, name) then argument pieces; `interleave` alternates calls' pieces. */
export function toolCallChunks(calls: ScriptToolCall[], opts: { size?: number; interleave?: boolean } = {}): ChatChunk[] {
  const head = (c: ScriptToolCall, index: number) =>
    chunk({ tool_calls: [{ index, ...(c.id !== undefined ? { id: c.id } : {}), type: 'function', function: { name: c.name, arguments: '' } }] });
  const argChunk = (index: number, a: string) => chunk({ tool_calls: [{ index, function: { arguments: a } }] });
  if (!opts.interleave) {
    return calls.flatMap((c, i) => [head(c, i), ...pieces(c.arguments, opts.size).filter((a) => a !== '').map((a) => argChunk(i, a))]);
  }
  const out = calls.map((c, i) => head(c, i));
  const frags = calls.map((c) => pieces(c.arguments, opts.size).filter((a) => a !== ''));
  for (let round = 0; frags.some((f) => round < f.length); round++) {
    frags.forEach((f, i) => { if (round < f.length) out.push(argChunk(i, f[round])); });
  }
  return out;
}

export function finishChunk(reason = 'stop'): ChatChunk {
  return chunk({}, reason);
}

export function usageChunk(u: UsageSpec): ChatChunk {
  return {
    id: CHUNK_ID, object: 'chat.completion.chunk', created: 1700000000, model: MODEL, choices: [],
    usage: {
      prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens, total_tokens: u.prompt_tokens + u.completion_tokens,
      prompt_tokens_details: { cached_tokens: u.cached_tokens ?? 0 },
    },
  };
}

export interface TurnSpec {
  reasoning?: string;
  reasoningField?: 'reasoning_content' | 'reasoning';
  text?: string;
  toolCalls?: ScriptToolCall[];
  interleave?: boolean;
  /** Default `tool_calls` when there are calls, else `stop`; `null` sends no finish chunk. */
  finish?: string | null;
  /** Default 10 prompt / 5 completion tokens; `null` sends no usage chunk. */
  usage?: UsageSpec | null;
  size?: number;
}

export const DEFAULT_USAGE: UsageSpec = { prompt_tokens: 10, completion_tokens: 5 };

export function turnChunks(t: TurnSpec): ChatChunk[] {
  const out: ChatChunk[] = [];
  if (t.reasoning !== undefined) out.push(...reasoningChunks(t.reasoning, { size: t.size, field: t.reasoningField }));
  if (t.text !== undefined) out.push(...textChunks(t.text, { size: t.size }));
  if (t.toolCalls?.length) out.push(...toolCallChunks(t.toolCalls, { size: t.size, interleave: t.interleave }));
  const finish = t.finish === undefined ? (t.toolCalls?.length ? 'tool_calls' : 'stop') : t.finish;
  if (finish !== null) out.push(finishChunk(finish));
  const usage = t.usage === undefined ? DEFAULT_USAGE : t.usage;
  if (usage !== null) out.push(usageChunk(usage));
  return out;
}

/** Rough token count of a chunk's payload text (chars / 4, at least 1), for pacing. */
export function chunkTokens(c: ChatChunk): number {
  const d = c.choices[0]?.delta ?? {};
  let chars = 0;
  for (const k of ['content', 'reasoning_content', 'reasoning']) if (typeof d[k] === 'string') chars += (d[k] as string).length;
  for (const tc of (d.tool_calls as { function?: { arguments?: string } }[] | undefined) ?? []) chars += tc.function?.arguments?.length ?? 0;
  return Math.max(1, Math.ceil(chars / 4));
}
