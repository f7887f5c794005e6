/**
 * Creating, editing and deleting messages in the fake world, shared by channel routes, interaction
 * responses and webhook follow-ups: applies a validated payload (uploads become attachments served by
 * the fake CDN, PATCH keeps only listed attachments), records every version, works out mentions and
 * pings, dedupes enforced nonces, enforces the edit budget for messages over an hour old (30046), and
 * dispatches MESSAGE_CREATE / MESSAGE_UPDATE / MESSAGE_DELETE to the gateway (never for ephemerals).
 */
import { randomBytes } from 'node:crypto';
import { dcErrors, FormErrors } from './discord-errors';
import { analyseMentions } from './discord-mentions';
import { Perm, has } from './discord-permissions';
import type { DiscordStore, PingReport, StoredAttachment, StoredChannel, StoredMessage } from './discord-store';
import { Intent, MessageType, type FakeClock, type Json } from './discord-types';
import type { MessagePayload } from './discord-validate';
import type { UploadedFile } from './discord-http';
import { messageJson } from './discord-wire';

export interface DispatchSpec {
  t: string;
  /** Guild the event belongs to (shard routing); DMs have none. */
  guildId?: string;
  /** Intent a session needs to receive it; none = always sent. */
  intent?: number;
  /** The `d` for one session (undefined = do not send to it). */
  build: (session: { intents: number }) => Json | undefined;
}

export interface OldEditBudget {
  /** Messages older than this count as old. Default 1 hour. */
  ageMs: number;
  /** Edits of old messages allowed per channel per window. */
  limit: number;
  windowMs: number;
}

export interface MessageWorld {
  readonly store: DiscordStore;
  readonly clock: FakeClock;
  readonly cdnRoot: string;
  readonly attachmentSizeLimit: number;
  readonly oldEditBudget: OldEditBudget | false;
  /** Whether the app has MESSAGE_CONTENT switched on (governs REST reads). */
  readonly appHasMessageContent: boolean;
  dispatch(spec: DispatchSpec): void;
  changed(): void;
}

export interface AuthorSpec {
  userId: string;
  webhookId?: string;
  applicationId?: string;
  interaction?: StoredMessage['interaction'];
  ephemeralTo?: string;
  type?: number;
}

export class MessageService {
  private oldEdits = new Map<string, number[]>();
  private nonces = new Map<string, { id: string; at: number }>();

  constructor(private readonly w: MessageWorld) {}

  /** Whether a session with these intents sees this message's content. */
  canSeeContent(intents: number, msg: StoredMessage): boolean {
    const botId = this.w.store.bot.id;
    if (intents & Intent.MessageContent || msg.authorId === botId || !msg.guildId) return true;
    if (msg.mentions.users.includes(botId)) return true;
    const botRole = this.w.store.guilds.get(msg.guildId)?.botRoleId;
    return botRole !== undefined && msg.mentions.roles.includes(botRole);
  }

  render(msg: StoredMessage, gateway: boolean, intents: number | 'rest'): Json {
    const withhold = intents === 'rest' ? !this.w.appHasMessageContent && !this.canSeeContent(0, msg) : !this.canSeeContent(intents, msg);
    return messageJson(this.w.store, msg, { gateway, withholdContent: withhold, cdnRoot: this.w.cdnRoot });
  }

  create(ch: StoredChannel, p: MessagePayload, files: UploadedFile[], author: AuthorSpec): StoredMessage {
    const store = this.w.store;
    if (p.nonce !== undefined && p.enforceNonce) {
      const key = `${author.userId}:${ch.id}:${p.nonce}`;
      const seen = this.nonces.get(key);
      const hit = seen ? ch.messages.get(seen.id) : undefined;
      if (seen && hit && this.w.clock.now() - seen.at < 5 * 60_000) return hit;
    }
    let reference: StoredMessage['reference'];
    let repliedAuthorId: string | undefined;
    if (p.reference) {
      const target = ch.messages.get(p.reference.message_id);
      if (target && !target.deleted) {
        reference = { message_id: target.id, channel_id: ch.id, ...(ch.guildId ? { guild_id: ch.guildId } : {}) };
        repliedAuthorId = target.authorId;
      } else if (p.reference.fail_if_not_exists !== false) {
        new FormErrors().add('message_reference', 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE', 'Unknown message').throwIfAny();
      }
    }
    const attachments = this.uploads(ch, p, files, []);
    const flags = p.flags ?? 0;
    const msg = store.addMessage(ch, {
      authorId: author.userId, type: author.type ?? (reference ? MessageType.Reply : MessageType.Default), content: p.content ?? '',
      embeds: p.embeds ?? [], components: p.components ?? [], attachments, flags, tts: p.tts ?? false,
      webhookId: author.webhookId, applicationId: author.applicationId, interaction: author.interaction, ephemeralTo: author.ephemeralTo,
      reference, nonce: p.nonce, allowedMentions: p.allowedMentions ?? undefined,
    });
    this.mention(msg, repliedAuthorId, true);
    if (p.nonce !== undefined && p.enforceNonce) this.nonces.set(`${author.userId}:${ch.id}:${p.nonce}`, { id: msg.id, at: msg.createdAt });
    ch.typing = ch.typing.filter((t) => t.userId !== author.userId);
    if (!msg.ephemeralTo) this.dispatchMessage('MESSAGE_CREATE', msg);
    this.w.changed();
    return msg;
  }

  /** Applies an edit; `checkOld` enforces the 30046 budget (channel edits, not interaction webhooks). */
  edit(ch: StoredChannel, msg: StoredMessage, p: MessagePayload, files: UploadedFile[], checkOld: boolean): StoredMessage {
    const now = this.w.clock.now();
    const budget = this.w.oldEditBudget;
    if (checkOld && budget && now - msg.createdAt >= budget.ageMs) {
      const spent = (this.oldEdits.get(ch.id) ?? []).filter((t) => now - t < budget.windowMs);
      if (spent.length >= budget.limit) throw dcErrors.oldMessageEdits();
      spent.push(now);
      this.oldEdits.set(ch.id, spent);
      msg.oldEdits.push(now);
    }
    const before = { at: msg.editedAt ?? msg.createdAt, content: msg.content, embeds: msg.embeds, components: msg.components, flags: msg.flags };
    const attachments = p.attachments !== undefined || files.length ? this.uploads(ch, p, files, msg.attachments) : msg.attachments;
    const next = {
      content: p.content === undefined ? msg.content : (p.content ?? ''),
      embeds: p.embeds === undefined ? msg.embeds : (p.embeds ?? []),
      components: p.components === undefined ? msg.components : (p.components ?? []),
      flags: p.flags === undefined ? msg.flags : p.flags,
    };
    if (next.content === '' && !next.embeds.length && !next.components.length && !attachments.length) throw dcErrors.emptyMessage();
    msg.history.push(before);
    Object.assign(msg, next, { attachments, editedAt: now });
    if (p.allowedMentions !== undefined) msg.allowedMentions = p.allowedMentions ?? undefined;
    const replied = msg.reference ? this.w.store.findMessage(msg.reference.message_id)?.message.authorId : undefined;
    this.mention(msg, replied, false);
    if (!msg.ephemeralTo) this.dispatchMessage('MESSAGE_UPDATE', msg);
    this.w.changed();
    return msg;
  }

  delete(ch: StoredChannel, msg: StoredMessage): void {
    msg.deleted = true;
    msg.deletedAt = this.w.clock.now();
    if (!msg.ephemeralTo) {
      const d: Json = { id: msg.id, channel_id: ch.id, ...(ch.guildId ? { guild_id: ch.guildId } : {}) };
      this.w.dispatch({ t: 'MESSAGE_DELETE', guildId: ch.guildId, intent: ch.guildId ? Intent.GuildMessages : Intent.DirectMessages, build: () => d });
    }
    this.w.changed();
  }

  dispatchMessage(t: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE', msg: StoredMessage): void {
    this.w.dispatch({
      t, guildId: msg.guildId, intent: msg.guildId ? Intent.GuildMessages : Intent.DirectMessages, build: (s) => this.render(msg, true, s.intents),
    });
  }

  /** Recomputes mentions; pings accumulate over versions (an edit can still highlight someone). */
  private mention(msg: StoredMessage, repliedAuthorId: string | undefined, first: boolean): void {
    const store = this.w.store;
    const ch = store.channels.get(msg.channelId)!;
    const guild = store.guildOf(ch);
    const r = analyseMentions({
      content: msg.content, allowedMentions: msg.allowedMentions, authorId: msg.authorId, repliedAuthorId,
      canMentionEveryone: has(store.permissions(msg.authorId, ch), Perm.MentionEveryone) && !!guild, roles: guild?.roles ?? new Map(),
      knownUser: (id) => store.users.has(id), flags: msg.flags,
    });
    msg.mentions = r.mentions;
    msg.pings = first ? r.pings : mergePings(msg.pings, r.pings);
  }

  private uploads(ch: StoredChannel, p: MessagePayload, files: UploadedFile[], existing: StoredAttachment[]): StoredAttachment[] {
    const limit = this.w.attachmentSizeLimit;
    for (const f of files) if (f.data.length > limit) throw dcErrors.tooLarge();
    const listed = p.attachments;
    const kept = listed === undefined ? [...existing] : existing.filter((a) => listed.some((l) => String(l.id) === a.id));
    const used = new Set<number>();
    const fresh: StoredAttachment[] = [];
    const make = (file: UploadedFile, meta?: { filename?: string; description?: string }): StoredAttachment => {
      const id = this.w.store.ids.next();
      const filename = (meta?.filename ?? file.fileName).replace(/[^\w.-]/g, '_');
      const sig = `?ex=${Math.floor(this.w.clock.now() / 1000 + 86_400).toString(16)}&is=${Math.floor(this.w.clock.now() / 1000).toString(16)}&hm=${randomBytes(16).toString('hex')}&`;
      const path = `/attachments/${ch.id}/${id}/${filename}${sig}`;
      const a: StoredAttachment = { id, filename, size: file.data.length, url: path, proxy_url: path, content_type: file.contentType, data: file.data };
      if (meta?.description) a.description = meta.description;
      return a;
    };
    for (const l of listed ?? []) {
      const n = Number(l.id);
      const isIndex = typeof l.id === 'number' || (String(l.id).length < 5 && Number.isInteger(n));
      if (isIndex && files[n] && !used.has(n)) {
        used.add(n);
        fresh.push(make(files[n], l));
      }
    }
    files.forEach((f, n) => {
      if (!used.has(n)) fresh.push(make(f));
    });
    return [...kept, ...fresh];
  }
}

function mergePings(a: PingReport, b: PingReport): PingReport {
  const users = [...new Set([...a.users, ...b.users])];
  const roles = [...new Set([...a.roles, ...b.roles])];
  const out: PingReport = { everyone: a.everyone || b.everyone, here: a.here || b.here, users, roles, any: a.any || b.any };
  if (a.repliedUser ?? b.repliedUser) out.repliedUser = a.repliedUser ?? b.repliedUser;
  return out;
}
