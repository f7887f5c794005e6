/**
 * Webhook delivery for the fake: each update is POSTed as JSON to the webhook URL (with
 * `X-Telegram-Bot-Api-Secret-Token` when a secret is set) and redelivered after `retryDelayMs` until the
 * receiver answers 2xx. Updates of one chat go one at a time, in order; different chats run in parallel
 * up to `max_connections`. A 2xx JSON body carrying `method` is executed as a webhook reply.
 * Scheduling is O(1) per update (per-chat queues plus a ready list). Plain http:// receivers only.
 */
import http from 'node:http';
import type { WebhookInfo } from './telegram-method-types';
import type { TgUpdate } from './telegram-types';

export interface WebhookConfig {
  url: string;
  secretToken?: string;
  maxConnections: number;
  allowedUpdates?: string[];
}

export interface WebhookHooks {
  retryDelayMs: number;
  timeoutMs: number;
  now(): number;
  /** A 2xx reply body that names a method: run it as an API call. */
  onReply(body: Record<string, unknown>): Promise<void>;
  /** Called after every attempt, delivered or not. */
  onAttempt(attempt: DeliveryAttempt): void;
}

export interface DeliveryAttempt {
  update_id: number;
  at: number;
  status?: number;
  error?: string;
  delivered: boolean;
}

/** The chat an update belongs to, for per-chat ordering. */
export function chatKeyOf(u: TgUpdate): string {
  for (const [k, v] of Object.entries(u)) {
    if (k === 'update_id' || typeof v !== 'object' || v === null) continue;
    const body = v as { chat?: { id?: number }; message?: { chat?: { id?: number } }; from?: { id?: number } };
    const id = body.chat?.id ?? body.message?.chat?.id ?? body.from?.id;
    if (id !== undefined) return String(id);
  }
  return 'global';
}

export class WebhookDeliverer {
  lastError: { date: number; message: string } | undefined;
  private queues = new Map<string, TgUpdate[]>();
  private ready: string[] = [];
  private readyHead = 0;
  private waiting = new Set<string>();
  private inFlight = 0;
  private queued = 0;
  private stopped = false;
  private timers = new Set<NodeJS.Timeout>();
  private requests = new Set<http.ClientRequest>();
  private readonly agent: http.Agent;
  private readonly target: URL;

  constructor(readonly config: WebhookConfig, private readonly hooks: WebhookHooks) {
    this.target = new URL(config.url);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: config.maxConnections });
  }

  /** What getWebhookInfo reports while this webhook is set. */
  info(): WebhookInfo {
    const info: WebhookInfo = { url: this.config.url, has_custom_certificate: false, pending_update_count: this.pending, max_connections: this.config.maxConnections };
    if (this.config.allowedUpdates) info.allowed_updates = [...this.config.allowedUpdates];
    if (this.lastError) {
      info.last_error_date = this.lastError.date;
      info.last_error_message = this.lastError.message;
    }
    return info;
  }

  get pending(): number {
    return this.queued;
  }

  enqueue(u: TgUpdate): void {
    if (this.stopped) return;
    const key = chatKeyOf(u);
    let q = this.queues.get(key);
    if (!q) {
      q = [];
      this.queues.set(key, q);
    }
    q.push(u);
    this.queued++;
    if (q.length === 1 && !this.waiting.has(key)) this.ready.push(key);
    this.pump();
  }

  /** Stops delivering; returns every undelivered update in update_id order. */
  stop(): TgUpdate[] {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const r of this.requests) r.destroy();
    this.requests.clear();
    this.agent.destroy();
    const left = [...this.queues.values()].flat().sort((a, b) => a.update_id - b.update_id);
    this.queues.clear();
    this.queued = 0;
    return left;
  }

  private pump(): void {
    while (!this.stopped && this.inFlight < this.config.maxConnections && this.readyHead < this.ready.length) {
      const key = this.ready[this.readyHead++];
      const q = this.queues.get(key);
      if (!q || q.length === 0) continue;
      this.waiting.add(key);
      this.inFlight++;
      void this.attempt(key, q[0]);
    }
    if (this.readyHead > 1024 && this.readyHead * 2 > this.ready.length) {
      this.ready = this.ready.slice(this.readyHead);
      this.readyHead = 0;
    }
  }

  private async attempt(key: string, update: TgUpdate): Promise<void> {
    const at = this.hooks.now();
    let status: number | undefined;
    let body = '';
    let error: string | undefined;
    try {
      ({ status, body } = await this.post(update));
      if (status < 200 || status >= 300) error = `Wrong response from the webhook: ${status} ${http.STATUS_CODES[status] ?? ''}`.trim();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      error = code === 'ECONNREFUSED' ? 'Connection refused' : (err as Error).message;
    }
    this.inFlight--;
    if (this.stopped) return;
    const delivered = error === undefined;
    this.hooks.onAttempt({ update_id: update.update_id, at, status, error, delivered });
    if (delivered) {
      const q = this.queues.get(key)!;
      q.shift();
      this.queued--;
      this.waiting.delete(key);
      if (q.length > 0) this.ready.push(key);
      else this.queues.delete(key);
      await this.runReply(body);
      this.pump();
      return;
    }
    this.lastError = { date: Math.floor(at / 1000), message: error! };
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.waiting.delete(key);
      this.ready.push(key);
      this.pump();
    }, this.hooks.retryDelayMs);
    this.timers.add(timer);
    this.pump();
  }

  private async runReply(body: string): Promise<void> {
    if (body.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return;
    }
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as { method?: unknown }).method === 'string') {
      await this.hooks.onReply(parsed as Record<string, unknown>);
    }
  }

  private post(update: TgUpdate): Promise<{ status: number; body: string }> {
    const payload = JSON.stringify(update);
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
    };
    if (this.config.secretToken) headers['X-Telegram-Bot-Api-Secret-Token'] = this.config.secretToken;
    return new Promise((resolve, reject) => {
      const req = http.request(this.target, { method: 'POST', headers, agent: this.agent, timeout: this.hooks.timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          this.requests.delete(req);
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      });
      this.requests.add(req);
      req.on('timeout', () => req.destroy(new Error('Read timeout expired')));
      req.on('error', (err) => {
        this.requests.delete(req);
        reject(err);
      });
      req.end(payload);
    });
  }
}
