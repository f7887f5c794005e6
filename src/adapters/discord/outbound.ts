/**
 * Outbound calls on neutral types: post (fills the conversation's deferred slash-command reply if one is
 * open, else opens a planned thread and creates a message), postNew (always a new message), edit (through
 * the interaction webhook while its token lives, else the channel; a thread's starter message is in the
 * parent), delete, typing and reactions (a 👀 on a still-deferred reply becomes its content). Every body is Discord Markdown with
 * `allowed_mentions: { parse: [] }` — nothing the model writes can ping — and the buttons as components,
 * resent on every edit. Every failure is thrown as a classified PlatformError.
 */
import type { Logger } from 'pino';
import { PlatformError } from '../contract/errors';
import type { MessageRef } from '../contract/messages';
import type { OutboundContent } from '../contract/surface';
import { bindingKey, type ThreadRef } from '../contract/thread-ref';
import { actionRows } from './components';
import type { DeferredReplies, DeferredReply } from './deferred-replies';
import { classifyDiscordError } from './errors';
import { discordContent } from './format';
import type { DiscordRest, Json } from './rest';
import { asDiscordRef } from './thread';
import type { ThreadOpener } from './threads';

/** Nobody is pinged by anything the bot sends: not @everyone, roles, users, nor the replied-to author. */
export const NO_PINGS = { parse: [] as string[], replied_user: false };

export function messageBody(content: OutboundContent): Json {
  return { content: discordContent(content), allowed_mentions: NO_PINGS, components: actionRows(content.buttons) };
}

/** Runs a call, throwing what it threw as a PlatformError; a missing permission names the one the call needs. */
export async function classified<T>(call: () => Promise<T>, needs?: string): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const e = classifyDiscordError(err);
    const c = e.classification;
    if (needs && c.kind === 'surface' && c.reason === 'permission') throw new PlatformError('discord', c, `${e.message} (the bot needs ${needs} here)`, { ...(e.code !== undefined ? { code: e.code } : {}), cause: err });
    throw e;
  }
}

const sendNeeds = (thread: ThreadRef) => (asDiscordRef(thread).thread ? 'View Channel and Send Messages in Threads' : 'View Channel and Send Messages');

export interface OutboundDeps {
  rest: DiscordRest;
  /** The application id (known once connected), for interaction webhooks. */
  appId: () => string;
  threads: ThreadOpener;
  replies: DeferredReplies;
  logger: Logger;
}

export class DiscordOutbound {
  constructor(private readonly o: OutboundDeps) {}

  /** The conversation's key (validating the ref), marking its open deferred replies active. */
  private touch(thread: ThreadRef): string {
    asDiscordRef(thread);
    const key = bindingKey(thread);
    this.o.replies.touch(key);
    return key;
  }

  async post(thread: ThreadRef, content: OutboundContent): Promise<MessageRef> {
    const key = this.touch(thread);
    const body = messageBody(content);
    const deferred = this.o.replies.claim(key);
    if (deferred && (await this.fill(deferred, body))) {
      await this.o.threads.open(thread).catch((err: unknown) => this.o.logger.warn({ err: classifyDiscordError(err).message }, 'discord: opening the thread on a reply failed; trying again on the next message'));
      return { thread, messageId: deferred.messageId };
    }
    return this.create(thread, body);
  }

  /** A new message in the conversation, never filling a deferred reply: a message nobody asked for (a scheduled run's) must not answer someone's slash command. */
  postNew(thread: ThreadRef, content: OutboundContent): Promise<MessageRef> {
    asDiscordRef(thread);
    return this.create(thread, messageBody(content));
  }

  private async create(thread: ThreadRef, body: Json): Promise<MessageRef> {
    const channel = await classified(() => this.o.threads.channelFor(thread));
    const sent = await classified(() => this.o.rest.createMessage(channel, body), sendNeeds(thread));
    return { thread, messageId: sent.id };
  }

  /** Fills a deferred reply; false when its interaction is gone (the caller posts anew). */
  private async fill(r: DeferredReply, body: Json): Promise<boolean> {
    try {
      await this.o.rest.editOriginal(this.o.appId(), r.token, body);
      this.o.replies.filled(r);
      return true;
    } catch (err) {
      const e = classifyDiscordError(err);
      if (e.kind === 'retry') {
        this.o.replies.release(r);
        throw e;
      }
      if (e.kind === 'degrade' || e.kind === 'ignore') return false;
      throw e;
    }
  }

  async edit(ref: MessageRef, content: OutboundContent): Promise<void> {
    this.touch(ref.thread);
    const body = messageBody(content);
    const token = this.o.replies.tokenFor(ref.messageId);
    if (token !== undefined) {
      try {
        await this.o.rest.editOriginal(this.o.appId(), token, body);
        return;
      } catch (err) {
        const e = classifyDiscordError(err);
        const c = e.classification;
        if (!(c.kind === 'degrade' && c.reason === 'gone')) throw e;
        // the token died early: the message itself may well be there, so edit it through the channel
        this.o.replies.forget(ref.messageId);
      }
    }
    await classified(() => this.o.rest.editMessage(this.o.threads.messageChannel(ref.thread, ref.messageId), ref.messageId, body), 'View Channel');
  }

  async delete(ref: MessageRef): Promise<void> {
    this.touch(ref.thread);
    await classified(() => this.o.rest.deleteMessage(this.o.threads.messageChannel(ref.thread, ref.messageId), ref.messageId));
  }

  async typing(thread: ThreadRef): Promise<void> {
    this.touch(thread);
    // before an `/ask` reply is filled its thread does not exist yet: show typing where the reply is
    const channel = this.o.threads.awaitsReply(thread) ? this.o.threads.channelNow(thread) : await classified(() => this.o.threads.channelFor(thread));
    await classified(() => this.o.rest.typing(channel), sendNeeds(thread));
  }

  async react(ref: MessageRef, emoji: string): Promise<void> {
    const key = this.touch(ref.thread);
    const deferred = this.o.replies.openFor(key, ref.messageId);
    if (deferred && this.o.replies.take(deferred)) {
      // a reaction on a reply still showing "thinking…" would leave it thinking: the emoji becomes the reply
      if (await this.fill(deferred, { content: emoji, allowed_mentions: NO_PINGS, components: [] })) return;
    }
    await classified(() => this.o.rest.react(this.o.threads.messageChannel(ref.thread, ref.messageId), ref.messageId, emoji), 'Read Message History and Add Reactions');
  }
}
