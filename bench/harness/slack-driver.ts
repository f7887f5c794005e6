/**
 * The fake Slack (test/fakes/slack-server.ts, Slack's per-method workspace limits, signed HTTP event
 * deliveries to the gateway's /slack/events) as a PlatformDriver. A chat is a thread: the first message of
 * a DM chat (or a mention in the bench channel for a group chat) opens it, later ones reply in it, so they
 * continue its session. 'inbound' fires when the fake starts delivering an event; 'outbound' for every
 * setStatus (typing), postMessage / startStream (post) and update / appendStream / stopStream (edit), with
 * the text the message shows after the call (a stream's text accumulates) and whether it still has buttons.
 */
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { SLACK_LIMITS } from '../../src/adapters/contract/limits';
import { FakeSlackServer } from '../../test/fakes/slack-server';
import type { SlackCallRecord } from '../../test/fakes/slack-call-log';
import type { SlackDelivery } from '../../test/fakes/slack-delivery';
import type { GatewayProcess } from './gateway-process';
import { chatKeyOf, emptyByKind, type OutKind, type PlatformDriver, type PlatformTotals } from './platform';

const KIND: Record<string, OutKind> = {
  'assistant.threads.setStatus': 'typing',
  'chat.postMessage': 'post',
  'chat.startStream': 'post',
  'chat.update': 'edit',
  'chat.appendStream': 'edit',
  'chat.stopStream': 'edit',
};

const json = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
};

const hasActions = (blocks: unknown): boolean => Array.isArray(json(blocks)) && (json(blocks) as Array<{ type?: string }>).some((b) => b?.type === 'actions');
const markdownOf = (blocks: unknown): string => (Array.isArray(json(blocks)) ? (json(blocks) as Array<{ type?: string; text?: unknown }>).filter((b) => b?.type === 'markdown').map((b) => String(b.text)).join('\n') : '');
const chunkActions = (chunks: unknown): boolean => Array.isArray(json(chunks)) && (json(chunks) as Array<{ type?: string; blocks?: unknown }>).some((c) => c?.type === 'blocks' && hasActions(c.blocks));

export class SlackDriver extends EventEmitter implements PlatformDriver {
  readonly name = 'slack' as const;
  readonly server = new FakeSlackServer({ recordCalls: false, workspace: { botName: 'bench' } });
  private started = false;
  private channel = '';
  /** `channel:thread_ts` → chat key, and the root of each chat's thread. */
  private readonly threads = new Map<string, string>();
  private readonly roots = new Map<string, { channel: string; ts: string }>();
  /** Bot message ts → chat key, its text so far and whether it carries buttons. */
  private readonly messages = new Map<string, { chat: string; text: string; buttons: boolean }>();
  private readonly counts: PlatformTotals = { calls: 0, rateLimited: 0, byKind: emptyByKind(), rateLimitedByKind: emptyByKind() };

  constructor() {
    super();
    this.setMaxListeners(0);
    this.server.on('call', (rec: SlackCallRecord) => this.onCall(rec));
    this.server.on('delivery', (d: SlackDelivery) => this.onDelivery(d));
  }

  async start(): Promise<void> {
    await this.server.start();
    this.channel = this.server.addChannel({ name: 'bench', kind: 'public' });
    this.started = true;
  }

  gatewayOptions(): { slack: { botToken: string; signingSecret: string; apiUrl: string } } {
    return { slack: { botToken: this.server.botToken, signingSecret: this.server.signingSecret, apiUrl: this.server.apiUrl } };
  }

  async attach(gw: GatewayProcess): Promise<void> {
    this.server.setRequestUrl(`${gw.url}/slack/events`);
  }

  async send(chat: number, text: string, opts: { group?: boolean } = {}): Promise<void> {
    const key = chatKeyOf(chat, opts.group);
    const user = `U${String(chat).padStart(9, '0')}`;
    const root = this.roots.get(key);
    if (opts.group) {
      this.server.store.channel({ id: this.channel, members: [user] });
      const m = this.server.mention(this.channel, user, text, root ? { thread_ts: root.ts } : {});
      if (!root) this.open(key, this.channel, m.ts);
    } else {
      const m = this.server.dmMessage(user, text, root ? { thread_ts: root.ts } : {});
      if (!root) this.open(key, m.channel, m.ts);
    }
  }

  liveIntervalMs(group: boolean): number {
    return group ? SLACK_LIMITS.minEditIntervalMs.group : SLACK_LIMITS.minEditIntervalMs.dm;
  }

  totals(): PlatformTotals {
    return { ...this.counts, byKind: { ...this.counts.byKind }, rateLimitedByKind: { ...this.counts.rateLimitedByKind }, rateLimited: this.server.rateLimitedCount() };
  }

  async detach(): Promise<void> {
    // HTTP deliveries end with the fake
  }

  async close(): Promise<void> {
    if (this.started) await this.server.stop();
    this.started = false;
  }

  private open(key: string, channel: string, ts: string): void {
    this.roots.set(key, { channel, ts });
    this.threads.set(`${channel}:${ts}`, key);
  }

  private onDelivery(d: SlackDelivery): void {
    const ev = (d.body as { event?: { channel?: string; ts?: string; thread_ts?: string } }).event;
    if (!ev?.channel || d.attempts.length !== 1) return;
    const key = this.threads.get(`${ev.channel}:${ev.thread_ts ?? ev.ts}`);
    if (key) this.emit('inbound', { chat: key, at: d.attempts[0].perfAt });
  }

  /** Which chat a call is about, and what its message shows after it. */
  private shown(rec: SlackCallRecord): { chat: string; text: string; buttons: boolean } | undefined {
    const p = rec.params;
    const ch = String(p.channel ?? p.channel_id ?? '');
    const ts = typeof rec.response?.ts === 'string' ? rec.response.ts : String(p.ts ?? '');
    switch (rec.method) {
      case 'assistant.threads.setStatus': {
        const chat = this.threads.get(`${ch}:${String(p.thread_ts)}`);
        return chat ? { chat, text: '', buttons: false } : undefined;
      }
      case 'chat.postMessage':
      case 'chat.startStream': {
        const chat = this.threads.get(`${ch}:${String(p.thread_ts)}`);
        if (!chat) return undefined;
        const m = { chat, text: rec.method === 'chat.postMessage' ? markdownOf(p.blocks) : String(p.markdown_text ?? ''), buttons: rec.method === 'chat.postMessage' ? hasActions(p.blocks) : chunkActions(p.chunks) };
        if (rec.ok && ts) this.messages.set(ts, m);
        return m;
      }
      default: {
        const m = this.messages.get(String(p.ts ?? ''));
        if (!m) return undefined;
        const next = rec.method === 'chat.update' ? { ...m, text: markdownOf(p.blocks), buttons: hasActions(p.blocks) } : { ...m, text: m.text + String(p.markdown_text ?? '') };
        if (rec.ok) this.messages.set(String(p.ts), next);
        return next;
      }
    }
  }

  private onCall(rec: SlackCallRecord): void {
    const kind = KIND[rec.method];
    if (!kind) return;
    const at = performance.now();
    const m = this.shown(rec);
    if (!m) return;
    this.counts.calls++;
    this.counts.byKind[kind]++;
    if (rec.status === 429) this.counts.rateLimitedByKind[kind]++;
    this.emit('outbound', { chat: m.chat, kind, at, text: m.text, hasButtons: m.buttons, ok: rec.ok, rateLimited: rec.status === 429 });
  }
}
