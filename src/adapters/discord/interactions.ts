/**
 * InteractionDesk: slash commands and button clicks, each acted on once. A command is acknowledged first,
 * within Discord's 3 s, with a deferred reply, then handed to the gateway as the message it stands for
 * (`/ask`'s prompt, or `/new` `/stop` `/mode <m>` `/status`); in a channel, `/ask` plans a thread on its
 * reply. Once handled, a reply nothing claimed is confirmed (the command acted silently) or removed (the
 * gateway stayed silent). A click is an ActionEvent whose `answer()` acknowledges it, or the desk does.
 */
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../contract/clock';
import type { InboundEvent } from '../contract/inbound-dispatcher';
import type { ActionAnswer, ActionEvent, ChatUser, InboundMessage } from '../contract/messages';
import { bindingKey, type DiscordThreadRef } from '../contract/thread-ref';
import type { AttachmentLimits } from './attachments';
import { commandText } from './commands';
import { TOKEN_SAFE_MS, type DeferredReplies, type DeferredReply } from './deferred-replies';
import { isThread, takesThreads, type ChannelDirectory } from './directory';
import { classifyDiscordError } from './errors';
import { displayName, threadName } from './inbound';
import { NO_PINGS } from './outbound';
import { snowflakeTime, type InteractionPayload } from './payloads';
import type { DiscordRest, Json } from './rest';
import { discordThread } from './thread';
import type { ThreadOpener, ThreadPlan } from './threads';

export const InteractionKind = { ApplicationCommand: 2, MessageComponent: 3 } as const;
export const Callback = { Reply: 4, DeferredReply: 5, DeferredUpdate: 6 } as const;
const EPHEMERAL = 1 << 6;
const HAS_THREAD = 1 << 5;
const MAX_SEEN = 5_000;

export interface DeskDeps {
  rest: DiscordRest;
  clock: Clock;
  logger: Logger;
  appId: () => string;
  replies: DeferredReplies;
  threads: ThreadOpener;
  directory: ChannelDirectory;
  limits: AttachmentLimits;
  /** Hands an event to the gateway; `afterHandled` runs once the gateway's handler has finished. */
  deliver(event: InboundEvent, afterHandled?: () => void): void;
  /** How long an unclaimed `/ask` reply waits after the gateway handled it before it is removed. */
  settleMs: number;
  /** A click the gateway has not answered after this long is acknowledged anyway (Discord allows 3 s). */
  ackSafetyMs: number;
}

/** What a command that acted without saying anything shows in its reply. */
const CONFIRMATION: Record<string, string> = { stop: '⏹️ Stopped.' };

function userOf(i: InteractionPayload): ChatUser | undefined {
  const u = i.member?.user ?? i.user;
  if (!u) return undefined;
  return { id: u.id, name: displayName(u), isBot: u.bot === true, ...(i.member ? { roles: i.member.roles } : {}) };
}

export function ephemeralBody(text: string): Json {
  const chars = [...text];
  return { content: chars.length > 2000 ? `${chars.slice(0, 1999).join('')}…` : text, flags: EPHEMERAL, allowed_mentions: NO_PINGS };
}

export class InteractionDesk {
  private readonly seen = new Set<string>();
  private readonly timers = new Set<TimerHandle>();
  private closed = false;

  constructor(private readonly d: DeskDeps) {}

  async onInteraction(i: InteractionPayload): Promise<void> {
    if (this.closed || this.seen.has(i.id)) return;
    this.seen.add(i.id);
    if (this.seen.size > MAX_SEEN) this.seen.delete(this.seen.values().next().value!);
    if (i.channel) this.d.directory.put(i.channel, i.guild_id);
    if (i.type === InteractionKind.ApplicationCommand) await this.command(i);
    else if (i.type === InteractionKind.MessageComponent) this.click(i);
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) this.d.clock.clearTimeout(t);
    this.timers.clear();
  }

  // ------------------------------------------------------------------ slash commands

  private async command(i: InteractionPayload): Promise<void> {
    const name = i.data?.name ?? '';
    const text = commandText(name, i.data?.options ?? []);
    const user = userOf(i);
    const channelId = i.channel?.id ?? i.channel_id;
    if (text === undefined || !user || !channelId) return;
    if (name === 'ask' && text === '') {
      await this.d.rest.callback(i.id, i.token, { type: Callback.Reply, data: ephemeralBody('Ask me something: `/ask prompt:` followed by your question.') })
        .catch((err: unknown) => this.d.logger.warn({ err: classifyDiscordError(err).message }, 'discord: could not answer an empty /ask'));
      return;
    }
    const messageId = await this.defer(i, name);
    if (!messageId) return;
    this.d.limits.note(i.guild_id ?? 'dm', i.attachment_size_limit);
    const { thread, plan } = this.conversationOf(i, channelId, name, messageId, text, user);
    if (plan) this.d.threads.plan(thread, plan);
    const reply: DeferredReply = { key: bindingKey(thread), interactionId: i.id, token: i.token, messageId, command: name, createdAt: this.d.clock.now(), activity: false };
    this.d.replies.add(reply);
    const message: InboundMessage = {
      platform: 'discord', thread, user, text, attachments: [], mentionsBot: true, isDM: i.guild_id === undefined,
      eventId: i.id, messageId, sentAt: snowflakeTime(i.id),
    };
    this.d.deliver({ kind: 'message', message }, () => this.afterHandled(reply));
  }

  /** The deferred reply, once more after a failure that may pass (5xx, network), within the 3 s window. */
  private async defer(i: InteractionPayload, name: string): Promise<string | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.d.rest.callback(i.id, i.token, { type: Callback.DeferredReply }, true);
      } catch (err) {
        const e = classifyDiscordError(err);
        if (e.kind === 'retry' && attempt < 2) continue;
        this.d.logger.warn({ command: name, err: e.message }, 'discord: could not acknowledge a slash command');
        return undefined;
      }
    }
  }

  private conversationOf(i: InteractionPayload, channelId: string, name: string, replyId: string, text: string, user: ChatUser): { thread: DiscordThreadRef; plan?: ThreadPlan } {
    const guild = i.guild_id;
    if (guild === undefined) return { thread: discordThread(null, channelId) };
    const channel = i.channel ?? this.d.directory.get(channelId);
    const type = channel?.type;
    if (type !== undefined && isThread(type)) {
      const parent = (i.channel?.parent_id ?? this.d.directory.get(channelId)?.parentId) || channelId;
      return { thread: discordThread(guild, parent, channelId) };
    }
    if (name !== 'ask' || (type !== undefined && !takesThreads(type))) return { thread: discordThread(guild, channelId) };
    const plan: ThreadPlan = { parent: channelId, starter: replyId, name: threadName(text, `Question from ${user.name ?? user.id}`), onReply: true };
    return { thread: discordThread(guild, channelId, replyId), plan };
  }

  private afterHandled(r: DeferredReply): void {
    if (r.command === 'ask') this.later(r, this.d.settleMs);
    else void this.settle(r);
  }

  private later(r: DeferredReply, ms: number): void {
    const t = this.d.clock.setTimeout(() => {
      this.timers.delete(t);
      void this.settle(r);
    }, ms);
    this.timers.add(t);
  }

  /**
   * A reply nothing claimed: confirmed if the command acted, removed if the gateway stayed silent. The
   * Task's first post claims an `/ask` reply moments after the gateway handed it on; one the gateway is
   * working on (it showed typing: the Task may be queued behind another) waits while its token lives.
   */
  private async settle(r: DeferredReply): Promise<void> {
    if (this.closed) return;
    const left = r.createdAt + TOKEN_SAFE_MS - this.d.clock.now();
    if (r.command === 'ask' && r.activity && left > 0) {
      if (this.d.replies.openFor(r.key, r.messageId)) this.later(r, left);
      return;
    }
    if (!this.d.replies.take(r)) return;
    const confirm = r.command !== 'ask' && r.activity;
    try {
      if (confirm) await this.d.rest.editOriginal(this.d.appId(), r.token, { content: CONFIRMATION[r.command] ?? '✅ Done.', allowed_mentions: NO_PINGS });
      else await this.d.rest.deleteOriginal(this.d.appId(), r.token);
    } catch (err) {
      this.d.logger.warn({ command: r.command, err: classifyDiscordError(err).message }, 'discord: settling a slash-command reply failed');
    }
  }

  // ------------------------------------------------------------------ buttons

  private click(i: InteractionPayload): void {
    const customId = i.data?.custom_id;
    const user = userOf(i);
    const channelId = i.channel?.id ?? i.channel_id;
    if (customId === undefined || !i.message || !user || !channelId) return;
    const thread = this.conversationOfMessage(i, channelId, i.message);
    const action: ActionEvent = {
      platform: 'discord', thread, user, payload: customId, message: { thread, messageId: i.message.id }, eventId: i.id,
      answer: this.answerer(i),
    };
    this.d.deliver({ kind: 'action', action });
  }

  /** The conversation a button belongs to: a thread's starter (e.g. an `/ask` reply) belongs to its thread. */
  private conversationOfMessage(i: InteractionPayload, channelId: string, m: NonNullable<InteractionPayload['message']>): DiscordThreadRef {
    const guild = i.guild_id;
    if (guild === undefined) return discordThread(null, channelId);
    const channel = i.channel ?? this.d.directory.get(channelId);
    if (channel && isThread(channel.type)) return discordThread(guild, (i.channel?.parent_id ?? this.d.directory.get(channelId)?.parentId) || channelId, channelId);
    const threaded = m.thread?.id === m.id || ((m.flags ?? 0) & HAS_THREAD) !== 0;
    return discordThread(guild, channelId, threaded ? m.id : null);
  }

  /** Acknowledges once: a deferred update, or an ephemeral notice; later notices become ephemeral follow-ups. */
  private answerer(i: InteractionPayload): (a?: ActionAnswer) => Promise<void> {
    let acked: Promise<void> | undefined;
    const ack = (body: Json) =>
      this.d.rest.callback(i.id, i.token, body).then(
        () => undefined,
        (err: unknown) => {
          const e = classifyDiscordError(err);
          if (e.kind !== 'ignore') throw e;
        },
      );
    const safety = this.d.clock.setTimeout(() => {
      this.timers.delete(safety);
      acked ??= ack({ type: Callback.DeferredUpdate });
      acked.catch((err: unknown) => this.d.logger.warn({ err: (err as Error).message }, 'discord: acknowledging a click failed'));
    }, this.d.ackSafetyMs);
    this.timers.add(safety);
    return async (a) => {
      this.d.clock.clearTimeout(safety);
      this.timers.delete(safety);
      if (!acked) {
        acked = ack(a?.text ? { type: Callback.Reply, data: ephemeralBody(a.text) } : { type: Callback.DeferredUpdate });
        return acked;
      }
      await acked.catch(() => undefined);
      if (a?.text) {
        await this.d.rest.followUp(this.d.appId(), i.token, ephemeralBody(a.text)).catch((err: unknown) => {
          const e = classifyDiscordError(err);
          if (e.kind !== 'ignore') throw e;
        });
      }
    };
  }
}

