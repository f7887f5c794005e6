/**
 * The one place an `openai` SDK client is built for a model connection, shared by GenerativeModel and the
 * endpoint probe (doctor), so both reach the same base URL with the same credentials: `maxRetries: 0`
 * (callers own retries), SDK logging off, requests over `modelFetch`, and no Authorization header at all
 * for a keyless endpoint on this machine or a private network; nothing read from the process environment.
 * A client type that is not the chat protocol, or a missing key for a public host, is a setup failure
 * returned instead of a client (no request is ever sent for it).
 * `sharedClient` hands every model of the same connection one client (it holds only that configuration;
 * requests carry their own options), so a session costs no client of its own.
 */
import type OpenAI from 'openai';
import type { LLMOutcome } from '../interfaces';
import { describeError } from './classify';
import { openaiSdk } from './openai-sdk';
import { modelFetch } from './model-fetch';
import { isPrivateBaseUrl } from './private-host';

/** Client types spoken here; anything else names a different wire protocol. */
export const CHAT_CLIENT_TYPES: readonly string[] = ['openai-chat', 'openai'];

export interface ClientTarget {
  modelId: string;
  apiKey?: string;
  baseUrl?: string;
  clientType?: string;
}

export type ClientResult = { ok: true; client: OpenAI } | { ok: false; failure: LLMOutcome };

/** The SDK insists on a credential; a keyless endpoint gets this one, and the header carrying it is removed. */
const NO_KEY = 'no-key';

export function openAIClient(t: ClientTarget): ClientResult {
  if (t.clientType !== undefined && !CHAT_CLIENT_TYPES.includes(t.clientType)) {
    return { ok: false, failure: { status: 'failed', permanent: true, errorMessage: `client_type "${t.clientType}" is not supported: this gateway speaks openai-chat only` } };
  }
  const keyless = t.apiKey === undefined || t.apiKey === '';
  if (keyless && !isPrivateBaseUrl(t.baseUrl)) {
    return { ok: false, failure: { status: 'auth', errorMessage: `no API key for model ${t.modelId}: set api_key in its model entry or OPENAI_API_KEY` } };
  }
  try {
    // The SDK's own console logging is off: every failure reaches the caller as an outcome instead.
    const client = new (openaiSdk().default)({
      apiKey: keyless ? NO_KEY : t.apiKey,
      baseURL: t.baseUrl ?? null,
      // Named, so the SDK does not read them from the gateway's environment and send the operator's OpenAI
      // organization and project (or hold its admin key) for whatever endpoint a model names.
      adminAPIKey: null,
      organization: null,
      project: null,
      webhookSecret: null,
      maxRetries: 0,
      logLevel: 'off',
      fetch: modelFetch,
      ...(keyless ? { defaultHeaders: { Authorization: null } } : {}),
    });
    return { ok: true, client };
  } catch (err) {
    return { ok: false, failure: { status: 'failed', permanent: true, errorMessage: describeError(err) } };
  }
}

/** Connections kept; past this the oldest client is dropped (a key rotated many times, say). */
const SHARED_LIMIT = 32;
const shared = new Map<string, ClientResult>();

/** The one client of a connection (same key, base URL and client type), built on first use. */
export function sharedClient(t: ClientTarget): ClientResult {
  const key = JSON.stringify([t.apiKey ?? '', t.baseUrl ?? '', t.clientType ?? '', t.modelId]);
  let made = shared.get(key);
  if (!made) {
    made = openAIClient(t);
    if (shared.size >= SHARED_LIMIT) shared.delete(shared.keys().next().value as string);
    shared.set(key, made);
  }
  return made;
}
