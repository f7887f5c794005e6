/**
 * The fake Slack's Web API front door for `/api/<method>`: parses the call, then applies, in order,
 * forced faults, Slack's auth checks (not_authed, invalid_auth, not_allowed_token_type,
 * account_inactive / token_revoked, missing_scope with needed/provided), per-method × workspace rate
 * limits (HTTP 429 + Retry-After, body `ratelimited`) and the method itself (unknown → unknown_method).
 * Every answer is HTTP 200 JSON except 429s and forced raw statuses, and every call is logged.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { SlackApiError, slackErrors } from './slack-errors';
import { sendRaw } from './http-body';
import { bearerOf, readCallInput, sendJson, type CallInput } from './slack-http';
import type { SlackCallLog, SlackCallRecord } from './slack-call-log';
import type { SlackFaultInjector, SlackFaultOutcome } from './slack-faults';
import type { MethodSpec } from './slack-method-types';
import type { SlackRateLimiter } from './slack-rate-limit';
import type { SlackStore } from './slack-store';
import type { FakeClock } from './slack-types';

export type AccountState = 'active' | 'inactive' | 'revoked';

export interface ApiConfig {
  store: SlackStore;
  clock: FakeClock;
  botToken: string;
  appToken: string;
  methods: Map<string, MethodSpec>;
  faults: SlackFaultInjector;
  limiter: SlackRateLimiter;
  log: SlackCallLog;
  scopes(): ReadonlySet<string>;
  accountState(): AccountState;
  onCall(rec: SlackCallRecord): void;
}

type Outcome =
  | { kind: 'json'; status: number; body: Record<string, unknown>; headers?: Record<string, string>; retryAfter?: number }
  | { kind: 'raw'; status: number; body: string; contentType: string; headers?: Record<string, string> }
  | { kind: 'disconnect' };

const APP_SCOPES: ReadonlySet<string> = new Set(['connections:write', 'authorizations:read']);

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class SlackApi {
  private seq = 0;
  constructor(private readonly c: ApiConfig) {}

  async handle(req: IncomingMessage, res: ServerResponse, method: string, url: URL): Promise<void> {
    const at = this.c.clock.now();
    const perfAt = performance.now();
    let input: CallInput;
    try {
      input = await readCallInput(req, url);
    } catch (err) {
      const e = err instanceof SlackApiError ? err : slackErrors.invalidArguments((err as Error).message);
      return this.finish(res, method, {}, 'unknown', undefined, at, perfAt, false, { kind: 'json', status: 200, body: e.body() });
    }
    const params = input.params;
    const channelRef = typeof params.channel === 'string' ? params.channel : typeof params.channel_id === 'string' ? params.channel_id : undefined;
    const channel = channelRef === undefined ? undefined : (this.c.store.resolveChannel(channelRef)?.id ?? channelRef);
    const token = bearerOf(req) ?? (typeof params.token === 'string' ? params.token : undefined);
    const tokenKind: SlackCallRecord['tokenKind'] = token === undefined ? 'none' : token === this.c.botToken ? 'bot' : token === this.c.appToken ? 'app' : 'unknown';
    const spec = this.c.methods.get(method);

    let forced = false;
    let outcome: Outcome | undefined;
    let fault = spec ? this.c.faults.take({ method, channel }) : undefined;
    while (fault !== undefined && typeof fault === 'object' && 'delayMs' in fault) {
      forced = true;
      await delay(fault.delayMs);
      fault = fault.then;
    }
    if (fault !== undefined) {
      forced = true;
      outcome = this.faultOutcome(fault);
    }
    outcome ??= await this.run(method, spec, input, tokenKind, token, channel);
    this.finish(res, method, params, tokenKind, channel, at, perfAt, forced, outcome);
  }

  private async run(method: string, spec: MethodSpec | undefined, input: CallInput, tokenKind: SlackCallRecord['tokenKind'], token: string | undefined, channel: string | undefined): Promise<Outcome> {
    const json = (e: SlackApiError, headers?: Record<string, string>): Outcome => ({ kind: 'json', status: 200, body: e.body(), headers });
    if (!spec) return json(slackErrors.unknownMethod(method));
    if (tokenKind === 'none') return json(slackErrors.notAuthed());
    if (tokenKind === 'unknown') return json(slackErrors.invalidAuth());
    const kind = tokenKind as 'bot' | 'app';
    if (spec.token !== 'any' && spec.token !== kind) return json(slackErrors.notAllowedTokenType());
    if (kind === 'bot') {
      const state = this.c.accountState();
      if (state === 'inactive') return json(slackErrors.accountInactive());
      if (state === 'revoked') return json(slackErrors.tokenRevoked());
    }
    const have = kind === 'bot' ? this.c.scopes() : APP_SCOPES;
    const scopeHeaders: Record<string, string> = { 'x-oauth-scopes': [...have].join(',') };
    if (spec.scopes.length > 0) scopeHeaders['x-accepted-oauth-scopes'] = spec.scopes.join(',');
    if (spec.scopes.length > 0 && !spec.scopes.some((s) => have.has(s))) {
      return json(slackErrors.missingScope(spec.scopes[0], [...have]), scopeHeaders);
    }
    const admission = this.c.limiter.admit(method, this.c.store.team.id, channel);
    if (!admission.ok) {
      const ch = channel ? this.c.store.channels.get(channel) : undefined;
      if (ch) ch.rateLimited++;
      return { kind: 'json', status: 429, body: slackErrors.ratelimited().body(), headers: { 'retry-after': String(admission.retryAfter) }, retryAfter: admission.retryAfter };
    }
    try {
      const result = await spec.run({ params: input.params, files: input.files, auth: { kind, token: token! } });
      return { kind: 'json', status: 200, body: { ok: true, ...result }, headers: scopeHeaders };
    } catch (err) {
      if (err instanceof SlackApiError) return json(err, scopeHeaders);
      return { kind: 'json', status: 200, body: { ok: false, error: 'internal_error', detail: (err as Error).message } };
    }
  }

  private faultOutcome(f: Exclude<SlackFaultOutcome, { delayMs: number }>): Outcome {
    if (f === 'disconnect') return { kind: 'disconnect' };
    if ('error' in f) return { kind: 'json', status: 200, body: new SlackApiError(f.error, f.extra).body() };
    if ('rateLimited' in f) {
      return { kind: 'json', status: 429, body: slackErrors.ratelimited().body(), headers: { 'retry-after': String(f.rateLimited) }, retryAfter: f.rateLimited };
    }
    return { kind: 'raw', status: f.httpStatus, body: f.body ?? `<html><body><h1>${f.httpStatus}</h1></body></html>`, contentType: f.contentType ?? 'text/html', headers: f.headers };
  }

  private finish(
    res: ServerResponse, method: string, params: Record<string, unknown>, tokenKind: SlackCallRecord['tokenKind'], channel: string | undefined,
    at: number, perfAt: number, forced: boolean, outcome: Outcome,
  ): void {
    const rec: SlackCallRecord = { seq: ++this.seq, method, params, tokenKind, at, perfAt, durationMs: performance.now() - perfAt, status: 0, ok: false, forced };
    if (channel !== undefined) rec.channel = channel;
    if (outcome.kind === 'json') {
      rec.status = outcome.status;
      rec.ok = outcome.body.ok === true;
      if (!rec.ok) rec.error = String(outcome.body.error);
      rec.response = outcome.body;
      if (outcome.retryAfter !== undefined) rec.retryAfter = outcome.retryAfter;
    } else if (outcome.kind === 'raw') {
      rec.status = outcome.status;
      rec.error = `http_${outcome.status}`;
    } else {
      rec.error = 'disconnect';
    }
    this.c.log.add(rec);
    this.c.onCall(rec);
    if (outcome.kind === 'disconnect') {
      res.socket?.destroy();
      return;
    }
    if (outcome.kind === 'raw') return sendRaw(res, outcome.status, outcome.body, outcome.contentType, outcome.headers);
    sendJson(res, outcome.status, outcome.body, outcome.headers);
  }
}
