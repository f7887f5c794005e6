/**
 * The fake Discord platform (test/fakes/discord-server.ts: the gateway's real @discordjs/ws and
 * @discordjs/rest connect to its REST API and gateway websocket; Discord's per-channel buckets, 5 writes per
 * 5 s, and the global 50 requests/s, answered with 429s) as a PlatformDriver. A DM chat is a user's DM with
 * the bot; a group chat is a mention in its own guild channel, answered in the thread the bot opens on it.
 * 'inbound' fires when the fake hands the MESSAGE_CREATE to the gateway connection; 'outbound' for every
 * typing, message create and edit in the chat's channels. Calls are not kept (recordCalls off), only counted.
 */
import { EventEmitter } from 'node:events';
import { DISCORD_LIMITS } from '../../src/adapters/contract/limits';
import type { CallRecord } from '../../test/fakes/discord-call-log';
import { FakeDiscordServer } from '../../test/fakes/discord-server';
import { chatKeyOf, emptyByKind, type OutKind, type PlatformDriver, type PlatformTotals } from './platform';

const KIND: Record<string, OutKind> = {
  triggerTyping: 'typing',
  createMessage: 'post',
  editMessage: 'edit',
  editWebhookMessage: 'edit',
};

function hasButtons(body: unknown): boolean {
  const rows = (body as { components?: Array<{ components?: unknown[] }> } | undefined)?.components;
  return Array.isArray(rows) && rows.some((r) => Array.isArray(r.components) && r.components.length > 0);
}

export class DiscordDriver extends EventEmitter implements PlatformDriver {
  readonly name = 'discord' as const;
  readonly server = new FakeDiscordServer({ recordCalls: false, botUsername: 'bench-bot' });
  private started = false;
  /** Channel (DM, group channel or its thread) → chat key. */
  private readonly chats = new Map<string, string>();
  private readonly users = new Map<number, string>();
  private readonly groups = new Map<number, string>();
  private readonly counts: PlatformTotals = { calls: 0, rateLimited: 0, byKind: emptyByKind(), rateLimitedByKind: emptyByKind() };

  constructor() {
    super();
    this.setMaxListeners(0);
    this.server.on('call', (rec: CallRecord) => this.onCall(rec));
  }

  async start(): Promise<void> {
    await this.server.start();
    this.started = true;
  }

  gatewayOptions(): { discord: { token: string; apiUrl: string } } {
    return { discord: { token: this.server.token, apiUrl: this.server.apiRoot } };
  }

  async attach(): Promise<void> {
    // readiness (/readyz green) already implies READY and the slash commands registered
  }

  async send(chat: number, text: string, opts: { group?: boolean } = {}): Promise<void> {
    const key = chatKeyOf(chat, opts.group);
    const sent = opts.group ? this.server.mention(this.groupChannel(chat), this.userFor(chat), text) : this.server.dm(this.userFor(chat), text);
    // the bot answers a mention in the thread it opens on the message (thread id = message id)
    if (opts.group) this.chats.set(sent.id, key);
    else this.chats.set(sent.channelId, key);
    this.emit('inbound', { chat: key, at: sent.sentAt });
  }

  /** Discord's pacing of a live message: one edit per 1.2 s (platforms.md §5). */
  liveIntervalMs(group: boolean): number {
    return group ? DISCORD_LIMITS.minEditIntervalMs.group : DISCORD_LIMITS.minEditIntervalMs.dm;
  }

  totals(): PlatformTotals {
    return { ...this.counts, byKind: { ...this.counts.byKind }, rateLimitedByKind: { ...this.counts.rateLimitedByKind }, rateLimited: this.server.rateLimitedCount() };
  }

  async detach(): Promise<void> {
    // the gateway closes its own websocket when it stops
  }

  async close(): Promise<void> {
    if (this.started) await this.server.stop();
    this.started = false;
  }

  private userFor(chat: number): string {
    let id = this.users.get(chat);
    if (!id) {
      id = this.server.addUser({ username: `bench-user-${chat}` }).id;
      this.users.set(chat, id);
    }
    return id;
  }

  private groupChannel(chat: number): string {
    let id = this.groups.get(chat);
    if (!id) {
      id = this.server.addChannel(this.server.defaultGuild.id, { name: `bench-group-${chat}` });
      this.groups.set(chat, id);
      this.chats.set(id, chatKeyOf(chat, true));
    }
    return id;
  }

  private onCall(rec: CallRecord): void {
    const chat = rec.majorId === undefined ? undefined : this.chats.get(rec.majorId);
    if (chat === undefined) return;
    const kind = KIND[rec.route] ?? 'other';
    this.counts.calls++;
    this.counts.byKind[kind]++;
    if (rec.status === 429) this.counts.rateLimitedByKind[kind]++;
    const content = (rec.body as { content?: unknown } | undefined)?.content;
    this.emit('outbound', {
      chat, kind, at: rec.answeredAt, text: typeof content === 'string' ? content : '', hasButtons: hasButtons(rec.body), ok: rec.ok, rateLimited: rec.status === 429,
    });
  }
}
