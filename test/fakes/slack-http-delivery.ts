/**
 * HTTP delivery to the app's Request URL, signed exactly as Slack signs: `X-Slack-Request-Timestamp`
 * and `X-Slack-Signature: v0=<hex HMAC-SHA256(signing secret, "v0:<ts>:<raw body>")>` over the real
 * clock (the app checks it against its own). Events that get no 2xx within the timeout (3 s) are
 * retried on a configurable schedule (Slack: ~now, ~1 min, ~5 min) with `X-Slack-Retry-Num` /
 * `X-Slack-Retry-Reason`, unless the app answers `X-Slack-No-Retry: 1`. Forgeries are for negative tests.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { DeliveryAttempt, DeliveryHandle } from './slack-delivery';

export type Forgery = 'bad-signature' | 'stale-timestamp' | 'no-signature';

export interface SendOptions {
  /** Retry on timeout / non-2xx / connection failure (Events API only). */
  retry: boolean;
  forge?: Forgery;
  /** Start at this retry number (manual redelivery); the first attempt then carries the retry headers. */
  retryNum?: number;
  retryReason?: string;
}

export interface HttpDeliveryConfig {
  signingSecret: string;
  timeoutMs: number;
  retryDelaysMs: number[];
  now(): number;
  onAttempt(handle: DeliveryHandle, attempt: DeliveryAttempt): void;
}

export function slackSignature(secret: string, timestamp: number | string, rawBody: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`;
}

export class HttpDeliverer {
  private timers = new Map<NodeJS.Timeout, DeliveryHandle>();
  private requests = new Set<http.ClientRequest>();
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
  private stopped = false;

  constructor(private readonly config: HttpDeliveryConfig) {}

  send(url: string, handle: DeliveryHandle, raw: string, contentType: string, opts: SendOptions): void {
    void this.attempt(url, handle, raw, contentType, opts, opts.retryNum ?? 0, opts.retryReason);
  }

  stop(): void {
    this.stopped = true;
    for (const [t, handle] of this.timers) {
      clearTimeout(t);
      handle.settle('failed');
    }
    this.timers.clear();
    for (const r of this.requests) r.destroy();
    this.requests.clear();
    this.agent.destroy();
  }

  private async attempt(url: string, handle: DeliveryHandle, raw: string, contentType: string, opts: SendOptions, retryNum: number, reason?: string): Promise<void> {
    if (this.stopped) return handle.settle('failed');
    const headers: Record<string, string | number> = { 'content-type': contentType, 'content-length': Buffer.byteLength(raw), 'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)' };
    let ts = Math.floor(Date.now() / 1000);
    if (opts.forge === 'stale-timestamp') ts -= 6 * 60;
    headers['x-slack-request-timestamp'] = String(ts);
    if (opts.forge !== 'no-signature') {
      headers['x-slack-signature'] = slackSignature(opts.forge === 'bad-signature' ? `${this.config.signingSecret}-forged` : this.config.signingSecret, ts, raw);
    }
    if (retryNum > 0) {
      headers['x-slack-retry-num'] = String(retryNum);
      headers['x-slack-retry-reason'] = reason ?? 'http_error';
    }
    const attempt: DeliveryAttempt = { retryNum, at: this.config.now(), perfAt: performance.now(), acked: false };
    if (retryNum > 0) attempt.retryReason = reason ?? 'http_error';
    handle.delivery.attempts.push(attempt);
    let nextReason: string | undefined;
    let noRetry = false;
    try {
      const res = await this.post(url, headers, raw);
      attempt.status = res.status;
      attempt.body = res.body;
      attempt.headers = res.headers;
      if (res.status >= 200 && res.status < 300) attempt.acked = true;
      else nextReason = 'http_error';
      noRetry = res.headers['x-slack-no-retry'] === '1';
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      attempt.error = e.message;
      nextReason = e.message === 'timeout' ? 'http_timeout' : 'connection_failed';
    }
    attempt.durationMs = performance.now() - attempt.perfAt;
    if (this.stopped) return handle.settle('failed');
    this.config.onAttempt(handle, attempt);
    if (attempt.acked) return handle.settle('acked');
    const delay = this.config.retryDelaysMs[retryNum];
    if (!opts.retry || noRetry || delay === undefined) return handle.settle('failed');
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.attempt(url, handle, raw, contentType, opts, retryNum + 1, nextReason);
    }, delay);
    this.timers.set(timer, handle);
  }

  private post(url: string, headers: Record<string, string | number>, raw: string): Promise<{ status: number; body: string; headers: Record<string, string> }> {
    return new Promise((resolve, reject) => {
      const req = http.request(url, { method: 'POST', headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          this.requests.delete(req);
          const h: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h[k] = v;
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: h });
        });
        res.on('error', reject);
      });
      const timer = setTimeout(() => req.destroy(new Error('timeout')), this.config.timeoutMs);
      this.requests.add(req);
      req.on('error', (err) => {
        clearTimeout(timer);
        this.requests.delete(req);
        reject(err);
      });
      req.end(raw);
    });
  }
}
