/**
 * The REST pipeline of the fake Discord API for `/api/v10/...` (and v9): match a route template,
 * check `Authorization: Bot <token>` where Discord needs it (not on interaction callbacks or webhook
 * tokens), apply forced faults, then the global and per-bucket rate limits, run the handler and log
 * the call. Every answer carries the bucket's `X-RateLimit-*` headers; errors use Discord's bodies.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { DcApiError, dcErrors, errorForCode } from './discord-errors';
import type { DiscordFaults, FaultOutcome } from './discord-faults';
import { readInput, sendJson, objectBody, type UploadedFile } from './discord-http';
import { sendRaw } from './http-body';
import { rateLimitBody, type BucketGroup, type DiscordRateLimiter } from './discord-rate-limit';
import type { CallRecord, DiscordCallLog } from './discord-call-log';
import type { FakeClock } from './discord-types';

export interface RouteContext {
  params: Record<string, string>;
  query: URLSearchParams;
  /** The body as an object ({} for none); `raw` keeps arrays (bulk overwrite). */
  body: Record<string, unknown>;
  raw: unknown;
  files: UploadedFile[];
}

export interface RouteResult {
  status: number;
  body?: unknown;
}

export interface RouteDef {
  name: string;
  method: string;
  template: string;
  segments: string[];
  auth: boolean;
  group: BucketGroup;
  major?: 'channel' | 'guild' | 'webhook' | 'interaction';
  global: boolean;
  /** Resource with its own hidden sub-limit (the edited message). */
  subKey?: (params: Record<string, string>) => string | undefined;
  handle: (ctx: RouteContext) => RouteResult | Promise<RouteResult>;
}

export interface RouteOptions {
  auth?: boolean;
  group?: BucketGroup;
  major?: RouteDef['major'];
  global?: boolean;
  subKey?: RouteDef['subKey'];
}

export function route(method: string, template: string, name: string, opts: RouteOptions, handle: RouteDef['handle']): RouteDef {
  const major = opts.major ?? (template.startsWith('/channels/:') ? 'channel' : template.startsWith('/guilds/:') ? 'guild' : undefined);
  return {
    name, method, template, segments: template.split('/').slice(1), auth: opts.auth ?? true, group: opts.group ?? 'default', major,
    global: opts.global ?? true, subKey: opts.subKey, handle,
  };
}

export interface RouterDeps {
  token: string;
  clock: FakeClock;
  faults: DiscordFaults;
  limiter: DiscordRateLimiter;
  log: DiscordCallLog;
  maxRequestBytes: number;
  onCall: (rec: CallRecord) => void;
}

export class RestRouter {
  private seq = 0;

  constructor(private readonly routes: RouteDef[], private readonly deps: RouterDeps) {}

  private match(method: string, path: string): { def: RouteDef; params: Record<string, string> } | 'method' | undefined {
    const parts = path.split('/').slice(1).map((p) => decodeURIComponent(p));
    let methodMismatch = false;
    for (const def of this.routes) {
      if (def.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      const ok = def.segments.every((seg, i) => {
        if (seg.startsWith(':')) {
          params[seg.slice(1)] = parts[i];
          return parts[i].length > 0;
        }
        return seg === parts[i];
      });
      if (!ok) continue;
      if (def.method === method) return { def, params };
      methodMismatch = true;
    }
    return methodMismatch ? 'method' : undefined;
  }

  private majorOf(def: RouteDef, params: Record<string, string>): string | undefined {
    if (def.major === 'channel') return params.channel;
    if (def.major === 'guild') return params.guild;
    if (def.major === 'webhook') return `${params.app}/${params.token}`;
    if (def.major === 'interaction') return params.id;
    return undefined;
  }

  async handle(req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<void> {
    const receivedAt = performance.now();
    const at = this.deps.clock.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const found = this.match(method, path);
    const def = typeof found === 'object' ? found.def : undefined;
    const params = typeof found === 'object' ? found.params : {};
    const majorId = def ? this.majorOf(def, params) : undefined;
    const rec: CallRecord = {
      seq: ++this.seq, route: def?.name ?? 'unknown', method, path, template: def ? `${def.method} ${def.template}` : `${method} ${path}`, majorId,
      query: Object.fromEntries(url.searchParams), body: undefined, files: [], at, receivedAt, answeredAt: 0, durationMs: 0, status: 0, ok: false,
      forced: false,
    };
    let headers: Record<string, string> = {};
    const finish = (status: number, body: unknown): void => {
      rec.status = status;
      rec.ok = status >= 200 && status < 300;
      if (rec.ok) rec.result = body;
      else if (body && typeof body === 'object') rec.error = body as CallRecord['error'];
      if (status > 0) sendJson(res, status, body, headers);
      rec.answeredAt = performance.now();
      rec.durationMs = rec.answeredAt - receivedAt;
      this.deps.log.add(rec);
      this.deps.onCall(rec);
    };
    const fail = (e: DcApiError): void => finish(e.status, e.body());
    let input;
    try {
      input = await readInput(req, this.deps.maxRequestBytes);
    } catch (err) {
      return fail(err instanceof DcApiError ? err : dcErrors.invalidJson());
    }
    rec.body = input.body;
    rec.files = input.files.map((f) => ({ field: f.field, fileName: f.fileName, contentType: f.contentType, size: f.data.length }));
    if (!def) return fail(found === 'method' ? dcErrors.methodNotAllowed() : dcErrors.notFound());
    if (def.auth && req.headers.authorization !== `Bot ${this.deps.token}`) return fail(dcErrors.unauthorized());

    let fault: FaultOutcome | undefined = this.deps.faults.take({ routeName: def.name, template: `${def.method} ${def.template}`, majorId });
    if (fault && typeof fault === 'object' && 'delayMs' in fault) {
      const delayed = fault;
      await new Promise((r) => setTimeout(r, delayed.delayMs));
      fault = delayed.then;
      if (res.destroyed) return finish(0, undefined);
    }
    if (fault !== undefined) {
      rec.forced = true;
      if (fault === 'disconnect' || fault === 'reset') {
        if (fault === 'reset') res.socket?.resetAndDestroy();
        else res.socket?.destroy();
        return finish(0, undefined);
      }
      if ('rateLimit' in fault) {
        const scope = fault.scope ?? (fault.global ? 'global' : 'user');
        headers = { 'retry-after': String(Math.max(1, Math.ceil(fault.rateLimit))), 'x-ratelimit-scope': scope };
        if (fault.global) headers['x-ratelimit-global'] = 'true';
        else Object.assign(headers, { 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': fault.rateLimit.toFixed(3), 'x-ratelimit-reset': ((this.deps.clock.now() + fault.rateLimit * 1000) / 1000).toFixed(3), 'x-ratelimit-bucket': 'forced' });
        rec.rateLimited = { scope, retryAfter: fault.rateLimit, global: !!fault.global };
        return finish(429, rateLimitBody(fault.rateLimit, !!fault.global));
      }
      if ('httpStatus' in fault) {
        rec.status = fault.httpStatus;
        sendRaw(res, fault.httpStatus, fault.body ?? '<html><body>502 Bad Gateway</body></html>', fault.contentType ?? 'text/html');
        rec.answeredAt = performance.now();
        rec.durationMs = rec.answeredAt - receivedAt;
        this.deps.log.add(rec);
        this.deps.onCall(rec);
        return;
      }
      return fail(errorForCode(fault.code, fault.status, fault.message));
    }

    const verdict = this.deps.limiter.admit(def.group, majorId ?? 'global', def.global, def.subKey?.(params));
    headers = verdict.headers;
    if (!verdict.ok) {
      rec.rateLimited = { scope: verdict.scope!, retryAfter: verdict.retryAfter!, global: !!verdict.global };
      return finish(429, rateLimitBody(verdict.retryAfter!, !!verdict.global));
    }
    try {
      const body = Array.isArray(input.body) ? {} : objectBody(input.body);
      const out = await def.handle({ params, query: url.searchParams, body, raw: input.body, files: input.files });
      finish(out.status, out.body);
    } catch (err) {
      if (err instanceof DcApiError) {
        if (err.status === 429 && err.retryAfter !== undefined) {
          Object.assign(headers, { 'retry-after': String(Math.max(1, Math.ceil(err.retryAfter))), 'x-ratelimit-scope': 'shared' });
          rec.rateLimited = { scope: 'shared', retryAfter: err.retryAfter, global: false };
        }
        return fail(err);
      }
      fail(new DcApiError(500, 0, `500: Internal Server Error (fake: ${(err as Error).message})`));
    }
  }
}
