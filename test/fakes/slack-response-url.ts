/**
 * `response_url`s of the fake Slack: each interactivity payload / slash command gets one, usable
 * 5 times within 30 minutes (clock time). A POST (JSON, as Bolt's `respond()` sends, or form `payload=`)
 * replaces the original message (`replace_original`), deletes it (`delete_original`), or posts a new
 * message: ephemeral to the clicking user by default, in the channel with `response_type: in_channel`.
 * Every use is recorded with what it did.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { validateBlocks, type BlockLimits } from './slack-blocks';
import { SlackApiError } from './slack-errors';
import { readSlackBody, sendJson } from './slack-http';
import type { SlackStore } from './slack-store';
import type { Block, FakeClock, StoredMessage } from './slack-types';

export interface ResponseUrlUse {
  at: number;
  body: Record<string, unknown>;
  action: 'replaced' | 'deleted' | 'ephemeral' | 'in_channel' | 'rejected';
  status: number;
  error?: string;
}

export interface ResponseUrlRecord {
  id: string;
  url: string;
  channel: string;
  /** The message the interaction came from (absent for slash commands). */
  messageTs?: string;
  user: string;
  createdAt: number;
  uses: ResponseUrlUse[];
}

export const RESPONSE_URL_MAX_USES = 5;
export const RESPONSE_URL_LIFETIME_MS = 30 * 60_000;

export interface ResponseUrlHooks {
  store: SlackStore;
  clock: FakeClock;
  blockLimits: BlockLimits;
  botMessageChanged(msg: StoredMessage, kind: 'posted' | 'updated' | 'deleted'): void;
  changed(): void;
}

export class ResponseUrls {
  readonly records = new Map<string, ResponseUrlRecord>();

  constructor(private readonly hooks: ResponseUrlHooks) {}

  create(channel: string, user: string, messageTs?: string): ResponseUrlRecord {
    const id = `${this.hooks.store.newId('')}/${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    const rec: ResponseUrlRecord = {
      id, url: `${this.hooks.store.baseUrl}/actions/${this.hooks.store.team.id}/${id}`, channel, user, createdAt: this.hooks.clock.now(), uses: [],
    };
    if (messageTs !== undefined) rec.messageTs = messageTs;
    this.records.set(id, rec);
    return rec;
  }

  async handle(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    const raw = (await readSlackBody(req)).toString('utf8');
    const rec = this.records.get(id);
    if (!rec) return sendJson(res, 404, { ok: false, error: 'invalid_url' });
    let body: Record<string, unknown>;
    try {
      const type = (req.headers['content-type'] ?? '').toLowerCase();
      const text = type.startsWith('application/x-www-form-urlencoded') ? (new URLSearchParams(raw).get('payload') ?? '{}') : raw;
      body = JSON.parse(text) as Record<string, unknown>;
      if (typeof body !== 'object' || body === null) throw new Error('not an object');
    } catch {
      return this.reply(res, rec, {}, 400, 'invalid_payload');
    }
    const now = this.hooks.clock.now();
    if (now - rec.createdAt > RESPONSE_URL_LIFETIME_MS) return this.reply(res, rec, body, 404, 'expired_url');
    if (rec.uses.filter((u) => u.action !== 'rejected').length >= RESPONSE_URL_MAX_USES) return this.reply(res, rec, body, 404, 'used_url');
    try {
      const action = this.apply(rec, body);
      rec.uses.push({ at: now, body, action, status: 200 });
      this.hooks.changed();
      sendJson(res, 200, { ok: true });
    } catch (err) {
      const code = err instanceof SlackApiError ? err.error : 'internal_error';
      this.reply(res, rec, body, code === 'internal_error' ? 500 : 400, code);
    }
  }

  private reply(res: ServerResponse, rec: ResponseUrlRecord, body: Record<string, unknown>, status: number, error: string): void {
    rec.uses.push({ at: this.hooks.clock.now(), body, action: 'rejected', status, error });
    this.hooks.changed();
    sendJson(res, status, { ok: false, error });
  }

  private apply(rec: ResponseUrlRecord, body: Record<string, unknown>): ResponseUrlUse['action'] {
    const { store } = this.hooks;
    const ch = store.channels.get(rec.channel);
    if (!ch) throw new SlackApiError('channel_not_found');
    const blocks = Array.isArray(body.blocks) ? (body.blocks as Block[]) : undefined;
    if (blocks) validateBlocks(blocks, this.hooks.blockLimits);
    const text = typeof body.text === 'string' ? body.text : '';
    const truthy = (v: unknown) => v === true || v === 'true';
    const original = rec.messageTs !== undefined ? ch.messages.get(rec.messageTs) : undefined;
    if (truthy(body.delete_original)) {
      if (!original) throw new SlackApiError('message_not_found');
      store.deleteMessage(ch, original.ts);
      this.hooks.botMessageChanged(original, 'deleted');
      return 'deleted';
    }
    if (truthy(body.replace_original)) {
      if (!original) throw new SlackApiError('message_not_found');
      original.text = text;
      original.blocks = blocks?.length ? store.withBlockIds(blocks) : undefined;
      original.markdown = undefined;
      original.edited = { user: store.bot.userId, ts: store.nextTs() };
      original.editCount++;
      original.changedAt = this.hooks.clock.now();
      this.hooks.botMessageChanged(original, 'updated');
      return 'replaced';
    }
    const threadTs = typeof body.thread_ts === 'string' ? body.thread_ts : undefined;
    if (body.response_type === 'in_channel') {
      const msg = store.addMessage(ch, {
        fromBot: true, user: store.bot.userId, bot_id: store.bot.botId, app_id: store.bot.appId, text, blocks: blocks?.length ? blocks : undefined,
        thread_ts: threadTs, via: 'response_url',
      });
      this.hooks.botMessageChanged(msg, 'posted');
      return 'in_channel';
    }
    store.ephemeral.push({
      channel: ch.id, user: rec.user, ts: store.nextTs(), text, blocks: blocks?.length ? store.withBlockIds(blocks) : undefined, thread_ts: threadTs,
      at: this.hooks.clock.now(), via: 'response_url',
    });
    return 'ephemeral';
  }
}
