/**
 * Outbound Web API calls on neutral types: post (chat.postMessage in the thread, or at a channel's top level
 * for the first message of a new conversation), edit (chat.update with the full blocks, so removed buttons
 * go; a message still streaming — a reply cut off by a restart — is stopped first), delete, typing
 * (assistant.threads.setStatus, Slack's "is thinking…" line, which clears when the bot replies), reactions
 * (by Slack emoji name), ephemeral notices and assistant-thread titles.
 * Every failure is thrown as a classified PlatformError.
 */
import type { WebClient } from '@slack/web-api';
import { PlatformError } from '../contract/errors';
import type { MessageRef } from '../contract/messages';
import type { OutboundContent } from '../contract/surface';
import type { ThreadRef } from '../contract/thread-ref';
import { classifySlackError, slackCall } from './errors';
import { defuseMentions, slackMessageBody } from './format';
import { slackTarget } from './thread';

export const TYPING_STATUS = 'is thinking…';
export const TITLE_MAX = 255;

/** Slack reactions are named; the emoji the gateway uses, by name. */
const EMOJI_NAMES: Record<string, string> = { '👀': 'eyes', '✅': 'white_check_mark', '❌': 'x', '⛔': 'no_entry', '⏳': 'hourglass_flowing_sand', '👍': '+1', '🆕': 'new' };

export function emojiName(emoji: string): string {
  const named = EMOJI_NAMES[emoji];
  if (named) return named;
  const bare = emoji.replace(/^:|:$/g, '');
  if (/^[a-z0-9_+'-]+$/.test(bare)) return bare;
  throw new PlatformError('slack', { kind: 'surface', reason: 'invalid_request' }, `no Slack emoji name for ${JSON.stringify(emoji)}`);
}

export class SlackOutbound {
  constructor(private readonly client: () => WebClient) {}

  async post(thread: ThreadRef, content: OutboundContent): Promise<MessageRef> {
    const t = slackTarget(thread);
    return { thread, messageId: (await this.postMessage(t.channel, t.threadTs, content)).ts };
  }

  /**
   * A new top-level message in `channel` (the root of a thread to come): its ts, and the conversation Slack
   * put it in (a user id as `channel` posts into the bot's IM with them, whose id events then carry).
   */
  postTopLevel(channel: string, content: OutboundContent): Promise<{ ts: string; channel: string }> {
    return this.postMessage(channel, undefined, content);
  }

  private async postMessage(channel: string, threadTs: string | undefined, content: OutboundContent): Promise<{ ts: string; channel: string }> {
    const body = slackMessageBody(content);
    const r = await slackCall('chat.postMessage', () =>
      this.client().chat.postMessage({
        channel,
        ...(threadTs !== undefined ? { thread_ts: threadTs } : {}),
        text: body.text,
        ...(body.blocks.length ? { blocks: body.blocks } : {}),
        unfurl_links: false,
        unfurl_media: false,
      } as Parameters<WebClient['chat']['postMessage']>[0]),
    );
    if (!r.ts) throw new PlatformError('slack', { kind: 'retry' }, 'chat.postMessage answered without a ts');
    return { ts: r.ts, channel: typeof r.channel === 'string' && r.channel !== '' ? r.channel : channel };
  }

  async edit(ref: MessageRef, content: OutboundContent): Promise<void> {
    const t = slackTarget(ref.thread);
    const body = slackMessageBody(content);
    const update = () => this.client().chat.update({ channel: t.channel, ts: ref.messageId, text: body.text, blocks: body.blocks } as Parameters<WebClient['chat']['update']>[0]);
    try {
      await update();
    } catch (err) {
      const e = classifySlackError(err, 'chat.update');
      if (e.code !== 'streaming_state_conflict') throw e;
      await slackCall('chat.stopStream', () => this.client().chat.stopStream({ channel: t.channel, ts: ref.messageId }));
      await slackCall('chat.update', update);
    }
  }

  async delete(ref: MessageRef): Promise<void> {
    const t = slackTarget(ref.thread);
    await slackCall('chat.delete', () => this.client().chat.delete({ channel: t.channel, ts: ref.messageId }));
  }

  async typing(thread: ThreadRef): Promise<void> {
    const t = slackTarget(thread);
    await slackCall('assistant.threads.setStatus', () => this.client().assistant.threads.setStatus({ channel_id: t.channel, thread_ts: t.threadTs, status: TYPING_STATUS }));
  }

  async react(ref: MessageRef, emoji: string): Promise<void> {
    const t = slackTarget(ref.thread);
    const name = emojiName(emoji);
    await slackCall('reactions.add', () => this.client().reactions.add({ channel: t.channel, timestamp: ref.messageId, name }));
  }

  async ephemeral(thread: ThreadRef, userId: string, text: string): Promise<void> {
    const t = slackTarget(thread);
    await this.ephemeralIn(t.channel, userId, text, t.threadTs);
  }

  /** A notice only `userId` sees (mrkdwn from the Markdown's plain form). */
  async ephemeralIn(channel: string, userId: string, text: string, threadTs: string): Promise<void> {
    const body = slackMessageBody({ text, plain: false });
    await slackCall('chat.postEphemeral', () =>
      this.client().chat.postEphemeral({ channel, user: userId, thread_ts: threadTs, text: body.text, blocks: body.blocks } as Parameters<WebClient['chat']['postEphemeral']>[0]),
    );
  }

  async setTitle(thread: ThreadRef, title: string): Promise<void> {
    const t = slackTarget(thread);
    const cps = [...defuseMentions(title)];
    const cut = cps.length <= TITLE_MAX ? cps.join('') : `${cps.slice(0, TITLE_MAX - 1).join('')}…`;
    await slackCall('assistant.threads.setTitle', () => this.client().assistant.threads.setTitle({ channel_id: t.channel, thread_ts: t.threadTs, title: cut }));
  }
}
