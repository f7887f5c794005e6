/**
 * The gateway's web playground as a PlatformDriver (no chat platform needed): `send` POSTs to
 * /api/web/conversations/<chat>/messages and 'inbound' is the moment the request is issued; 'outbound' comes
 * from the conversation's Server-Sent Events (typing, message, edit). There are no platform rate limits here,
 * so the web path measures the gateway's own overhead, never the Telegram floors.
 */
import { EventEmitter } from 'node:events';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { DEFAULTS } from '../../src/gateway/config/schema';
import { ADMIN_TOKEN, type GatewayProcess } from './gateway-process';
import { chatKeyOf, emptyByKind, type OutKind, type PlatformDriver, type PlatformTotals } from './platform';

interface WebEventData {
  type: string;
  message?: { author: string; text: string; buttons: unknown[]; final: boolean };
}

export class WebDriver extends EventEmitter implements PlatformDriver {
  readonly name = 'web' as const;
  private url?: string;
  private readonly streams = new Map<string, http.ClientRequest>();
  private readonly subscribing = new Map<string, Promise<void>>();
  private readonly counts: PlatformTotals = { calls: 0, rateLimited: 0, byKind: emptyByKind(), rateLimitedByKind: emptyByKind() };
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  constructor() {
    super();
    this.setMaxListeners(0);
  }

  gatewayOptions(): Record<string, never> {
    return {};
  }

  async attach(gw: GatewayProcess): Promise<void> {
    this.url = gw.url;
  }

  /** Posts a message; with `observe` (default) the conversation's events are followed from then on. */
  async send(chat: number, text: string, opts: { group?: boolean; observe?: boolean } = {}): Promise<void> {
    const conv = this.conversation(chat, opts.group);
    if (opts.observe !== false) await this.subscribe(conv);
    this.emit('inbound', { chat: chatKeyOf(chat, opts.group), at: performance.now() });
    const res = await this.request('POST', `/api/web/conversations/${conv}/messages`, JSON.stringify({ text }));
    if (res.status !== 202) throw new Error(`web send to ${conv} answered ${res.status}: ${res.body}`);
  }

  /** The gateway's default web edit interval (the playground has no platform limit). */
  liveIntervalMs(group: boolean): number {
    return group ? DEFAULTS.streaming.web.group_edit_interval_ms : DEFAULTS.streaming.web.dm_edit_interval_ms;
  }

  totals(): PlatformTotals {
    return { ...this.counts, byKind: { ...this.counts.byKind }, rateLimitedByKind: { ...this.counts.rateLimitedByKind } };
  }

  async detach(): Promise<void> {
    for (const r of this.streams.values()) r.destroy();
    this.streams.clear();
    this.subscribing.clear();
    this.agent.destroy();
  }

  async close(): Promise<void> {
    await this.detach();
  }

  /** A small authenticated request to the gateway (status and body text). */
  request(method: string, path: string, body?: string): Promise<{ status: number; body: string }> {
    const url = new URL(path, this.url);
    return new Promise((resolve, reject) => {
      const req = http.request(url, {
        method,
        agent: this.agent,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) },
        timeout: 30_000,
      }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  private conversation(chat: number, group?: boolean): string {
    return group ? `g${chat}` : `c${chat}`;
  }

  private subscribe(conv: string): Promise<void> {
    const have = this.subscribing.get(conv);
    if (have) return have;
    const key = conv.startsWith('g') ? chatKeyOf(Number(conv.slice(1)), true) : chatKeyOf(Number(conv.slice(1)));
    const p = new Promise<void>((resolve, reject) => {
      const req = http.get(new URL(`/api/web/conversations/${conv}/events`, this.url), { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`SSE for ${conv} answered ${res.statusCode}`));
        res.setEncoding('utf8');
        let buf = '';
        res.on('data', (d: string) => {
          const at = performance.now();
          buf += d;
          let end: number;
          while ((end = buf.indexOf('\n\n')) >= 0) {
            const frame = buf.slice(0, end);
            buf = buf.slice(end + 2);
            const data = /^data: (.*)$/m.exec(frame)?.[1];
            if (data) this.onEvent(key, JSON.parse(data) as WebEventData, at);
            else if (frame.startsWith(': connected')) resolve();
          }
        });
        res.on('error', () => undefined);
      });
      req.on('error', reject);
      this.streams.set(conv, req);
    });
    this.subscribing.set(conv, p);
    return p;
  }

  private onEvent(chat: string, e: WebEventData, at: number): void {
    let kind: OutKind;
    if (e.type === 'typing') kind = 'typing';
    else if (e.type === 'message' && e.message?.author === 'bot') kind = 'post';
    else if (e.type === 'edit') kind = 'edit';
    else return;
    this.counts.calls++;
    this.counts.byKind[kind]++;
    this.emit('outbound', { chat, kind, at, text: e.message?.text ?? '', hasButtons: (e.message?.buttons.length ?? 0) > 0, ok: true, rateLimited: false });
  }
}
