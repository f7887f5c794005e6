/**
 * ThreadOpener: the threads the adapter opens for conversations (a mention in a channel, `/ask` there),
 * created lazily when the gateway first acts on the conversation, so a message the gateway ignores opens
 * nothing. A thread on a user's message opens before the first typing or post; a thread on the deferred
 * `/ask` reply opens right after that reply is filled. "Already has a thread" counts as opened; when
 * Discord refuses (no Create Public Threads permission, a channel without threads) the conversation
 * answers in the parent channel instead, and the operator is told once per channel.
 */
import type { Logger } from 'pino';
import { bindingKey, type ThreadRef } from '../contract/thread-ref';
import type { ChannelDirectory } from './directory';
import { classifyDiscordError, DiscordCode } from './errors';
import type { PendingThread } from './inbound';
import type { DiscordRest } from './rest';
import { asDiscordRef, channelOf, channelOfMessage } from './thread';

export interface ThreadPlan extends PendingThread {
  /** The starter is the bot's deferred `/ask` reply: open the thread once the reply shows content. */
  onReply: boolean;
}

const MAX_PLANS = 10_000;

function bounded<K, V>(m: Map<K, V>, max: number): void {
  while (m.size > max) m.delete(m.keys().next().value!);
}

export class ThreadOpener {
  private readonly plans = new Map<string, ThreadPlan>();
  private readonly opening = new Map<string, Promise<void>>();
  /** Conversations answered in their parent channel because the thread could not be opened. */
  private readonly fellBack = new Map<string, string>();
  private readonly warnedChannels = new Set<string>();

  constructor(private readonly o: { rest: DiscordRest; directory: ChannelDirectory; logger: Logger }) {}

  plan(ref: ThreadRef, p: ThreadPlan): void {
    this.plans.set(bindingKey(ref), p);
    bounded(this.plans, MAX_PLANS);
  }

  /** The thread waits for its `/ask` reply to be filled. */
  awaitsReply(ref: ThreadRef): boolean {
    return this.plans.get(bindingKey(ref))?.onReply === true;
  }

  /** Where the conversation's messages go now, without opening anything (typing before an `/ask` reply). */
  channelNow(ref: ThreadRef): string {
    const key = bindingKey(ref);
    const plan = this.plans.get(key);
    return plan ? plan.parent : (this.fellBack.get(key) ?? channelOf(ref));
  }

  /** Where a message of the conversation lives. */
  messageChannel(ref: ThreadRef, messageId: string): string {
    return this.fellBack.get(bindingKey(ref)) ?? channelOfMessage(ref, messageId);
  }

  /** Opens the planned thread if there is one (once, however many callers), then says where to post. */
  async channelFor(ref: ThreadRef): Promise<string> {
    await this.open(ref);
    return this.channelNow(ref);
  }

  open(ref: ThreadRef): Promise<void> {
    const key = bindingKey(ref);
    const plan = this.plans.get(key);
    if (!plan) return Promise.resolve();
    let p = this.opening.get(key);
    if (!p) {
      p = this.create(key, ref, plan).finally(() => this.opening.delete(key));
      this.opening.set(key, p);
    }
    return p;
  }

  private async create(key: string, ref: ThreadRef, plan: ThreadPlan): Promise<void> {
    const guild = asDiscordRef(ref).guild ?? undefined;
    try {
      const thread = await this.o.rest.startThread(plan.parent, plan.starter, plan.name);
      this.o.directory.put(thread, guild);
    } catch (err) {
      const e = classifyDiscordError(err);
      if (e.code !== DiscordCode.ThreadAlreadyExists) {
        // a failure that may pass (429, 5xx, network) leaves the plan for the next call
        if (e.kind === 'retry') throw e;
        this.fellBack.set(key, plan.parent);
        bounded(this.fellBack, MAX_PLANS);
        // a starter that is gone (a removed `/ask` reply) is no problem of the channel's
        if (e.code !== DiscordCode.UnknownMessage) this.warnOnce(plan.parent, e.message);
      }
    }
    this.plans.delete(key);
  }

  private warnOnce(channel: string, why: string): void {
    if (this.warnedChannels.has(channel)) return;
    this.warnedChannels.add(channel);
    this.o.logger.error({ channel, err: why }, 'discord: cannot open a thread here (the bot needs Create Public Threads and Send Messages in Threads); answering in the channel');
  }
}
