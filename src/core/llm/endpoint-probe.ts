/**
 * Two read-only questions to a model endpoint, asked through the gateway's own SDK client
 * (openai-client.ts, so the same base URL, key and client-type rules): which ids `GET /models` lists, and
 * whether the model answers a one-token chat completion — the streamed request shape GenerativeModel sends
 * (`stream`, `stream_options`, `max_completion_tokens`), here capped at 1 with one user message "ping".
 * Every answer is plain data (HTTP status with the provider's code and message, a network failure, a
 * timeout, or the setup failure that keeps a request from being sent); none carries the key.
 */
import type { LLMOutcome } from '../interfaces';
import { causeChain, classifyError, describeError } from './classify';
import { openAIClient, type ClientTarget } from './openai-client';
import { openaiSdk } from './openai-sdk';

export type EndpointAnswer<T> =
  | { kind: 'ok'; value: T }
  /** The endpoint answered with an error status; `auth` is the gateway's own reading of it (classify.ts). */
  | { kind: 'http'; status: number; code?: string; message?: string; auth: boolean }
  | { kind: 'network'; message: string }
  | { kind: 'timeout'; message: string }
  /** It answered, but not in a shape the client understands (a broken stream, a body that is not JSON). */
  | { kind: 'other'; message: string }
  /** No request was sent: the gateway would not send one either. */
  | { kind: 'setup'; failure: LLMOutcome };

/** The ids `GET <base>/models` lists (empty when the answer holds no list). */
export function listModels(t: ClientTarget, timeoutMs: number): Promise<EndpointAnswer<string[]>> {
  return ask(t, timeoutMs, async (client, signal) => {
    const page = await client.models.list({ signal, timeout: timeoutMs });
    return page.data.map((m) => (m as { id?: unknown }).id).filter((id): id is string => typeof id === 'string' && id !== '');
  });
}

/** One streamed chat completion of at most one token; ok once the first chunk (or the end) arrives. */
export function pingModel(t: ClientTarget, timeoutMs: number): Promise<EndpointAnswer<void>> {
  return ask(t, timeoutMs, async (client, signal) => {
    const stream = await client.chat.completions.create(
      { model: t.modelId, messages: [{ role: 'user', content: 'ping' }], stream: true, stream_options: { include_usage: true }, max_completion_tokens: 1 },
      { signal, timeout: timeoutMs },
    );
    try {
      for await (const _chunk of stream) break;
    } finally {
      stream.controller.abort();
    }
  });
}

async function ask<T>(t: ClientTarget, timeoutMs: number, call: (client: import('openai').default, signal: AbortSignal) => Promise<T>): Promise<EndpointAnswer<T>> {
  const made = openAIClient(t);
  if (!made.ok) return { kind: 'setup', failure: made.failure };
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    return { kind: 'ok', value: await call(made.client, signal) };
  } catch (err) {
    return answerOf(err, timeoutMs, signal);
  }
}

function answerOf(err: unknown, timeoutMs: number, signal: AbortSignal): EndpointAnswer<never> {
  const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = openaiSdk();
  if (err instanceof APIConnectionTimeoutError || err instanceof APIUserAbortError || signal.aborted) {
    return { kind: 'timeout', message: `no answer within ${timeoutMs} ms` };
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    const body = err.error as { message?: unknown; code?: unknown } | string | undefined;
    const message = typeof body === 'string' ? body : typeof body?.message === 'string' ? body.message : undefined;
    const code = typeof err.code === 'string' ? err.code : undefined;
    return {
      kind: 'http',
      status: err.status,
      ...(code ? { code } : {}),
      ...(message ? { message } : {}),
      auth: classifyError(err, { phase: 'connect', fastMode: false }).status === 'auth',
    };
  }
  if (err instanceof APIConnectionError) return { kind: 'network', message: socketCode(err) ?? describeError(err) };
  return { kind: 'other', message: describeError(err) };
}

/** `ECONNREFUSED`, `ENOTFOUND`… from anywhere on the cause chain. */
function socketCode(err: unknown): string | undefined {
  const code = causeChain(err).map((l) => l.code).find((c): c is string => typeof c === 'string' && /^E[A-Z]+$/.test(c));
  if (code === 'ENOTFOUND') return 'host not found (ENOTFOUND)';
  return code;
}
