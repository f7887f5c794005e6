/**
 * Native streaming in threads (chat.startStream → appendStream → stopStream) as the writer's AppendStream.
 * Outside IMs Slack needs the recipient (the user being answered, and their team): the adapter remembers who
 * last wrote in each thread. Appends send only the unsent tail of the (mention-defused) text; an append
 * whose answer was lost marks the stream uncertain. `stop` settles the message to show exactly the content:
 * stopStream with the missing tail when the stream already shows the rest, else stopStream + chat.update
 * (which also removes the Stop button a stream carries as a blocks chunk). Streams are offered only while
 * the workspace's startStream budget has room, so a burst of replies falls back to post + update instead of
 * queueing for minutes; a workspace or thread where Slack refused streaming is remembered.
 */
import type { WebClient } from '@slack/web-api';
import type { Clock } from '../contract/clock';
import type { AppendStream, OutboundContent } from '../contract/surface';
import { bindingKey, type ThreadRef } from '../contract/thread-ref';
import { TokenBucket } from '../render/token-bucket';
import { actionsBlock } from './blocks';
import { classifySlackError, slackCall } from './errors';
import { defuseMentions, slackMessageBody } from './format';
import { SLACK_RATES } from './rate';
import { isImChannel, slackTarget } from './thread';

interface StreamState {
  /** What the stream shows, as sent (defused). */
  sent: string;
  /** An append failed in a way that may have landed: the text is no longer known. */
  uncertain: boolean;
  /** A blocks chunk (the Stop button) sits under the text. */
  hasBlocks: boolean;
}

/** Slack refused streaming for the whole workspace (method off, feature not enabled). */
const WORKSPACE_REFUSALS = new Set(['unknown_method', 'method_deprecated', 'not_allowed', 'feature_not_enabled', 'not_enabled', 'not_supported']);
const MEMORY_MAX = 10_000;

export class SlackStreams {
  private readonly states = new Map<string, StreamState>();
  private readonly recipients = new Map<string, { user: string; team: string }>();
  private readonly refusedThreads = new Set<string>();
  private readonly refusedTeams = new Set<string>();
  private readonly budgets = new Map<string, TokenBucket>();

  constructor(private readonly client: () => WebClient, private readonly clock: Clock) {}

  /** The person the bot answers next in this thread (the last one who wrote or clicked there). */
  noteRecipient(thread: ThreadRef, user: string, team: string): void {
    const key = bindingKey(thread);
    this.recipients.delete(key);
    if (this.recipients.size >= MEMORY_MAX) this.recipients.delete(this.recipients.keys().next().value!);
    this.recipients.set(key, { user, team });
  }

  /** An append stream for this thread, or undefined where streaming cannot or should not be used now. */
  streamFor(thread: ThreadRef): AppendStream | undefined {
    const t = slackTarget(thread);
    const key = bindingKey(thread);
    const recipient = this.recipients.get(key);
    if (this.refusedTeams.has(t.team) || this.refusedThreads.has(key)) return undefined;
    if (!recipient && !isImChannel(t.channel)) return undefined;
    if (!this.admit(t.team)) return undefined;
    return {
      kind: 'append',
      start: (content) => this.start(thread, recipient, content),
      append: (id, delta, content) => this.append(thread, id, delta, content),
      stop: (id, content) => this.stop(thread, id, content),
    };
  }

  /** One startStream (and later one stopStream) per stream: admitted while the workspace's budget has a token. */
  private admit(team: string): boolean {
    const now = this.clock.now();
    let b = this.budgets.get(team);
    if (!b) {
      b = new TokenBucket(`slack:${team}:stream-admission`, SLACK_RATES.streamStart, now);
      this.budgets.set(team, b);
    }
    if (b.level(now) < 1) return false;
    b.take(now);
    return true;
  }

  private async start(thread: ThreadRef, recipient: { user: string; team: string } | undefined, content: OutboundContent): Promise<string> {
    const t = slackTarget(thread);
    const text = defuseMentions(content.text);
    const actions = actionsBlock(content.buttons);
    try {
      const r = await this.client().chat.startStream({
        channel: t.channel,
        thread_ts: t.threadTs,
        ...(text !== '' ? { markdown_text: text } : {}),
        ...(actions ? { chunks: [{ type: 'blocks', blocks: [actions] }] } : {}),
        ...(recipient ? { recipient_user_id: recipient.user, recipient_team_id: recipient.team } : {}),
      } as Parameters<WebClient['chat']['startStream']>[0]);
      if (!r.ts) throw new Error('chat.startStream answered without a ts');
      this.remember(r.ts, { sent: text, uncertain: false, hasBlocks: actions !== undefined });
      return r.ts;
    } catch (err) {
      const e = classifySlackError(err, 'chat.startStream');
      if (e.classification.kind === 'degrade' && e.classification.reason === 'draft_unsupported') {
        if (WORKSPACE_REFUSALS.has(String(e.code))) this.refusedTeams.add(t.team);
        else this.refusedThreads.add(bindingKey(thread));
      }
      throw e;
    }
  }

  private async append(thread: ThreadRef, ts: string, delta: string, content: OutboundContent): Promise<void> {
    const t = slackTarget(thread);
    const state = this.states.get(ts) ?? { sent: '', uncertain: true, hasBlocks: false };
    const full = defuseMentions(content.text);
    const tail = full.startsWith(state.sent) ? full.slice(state.sent.length) : defuseMentions(delta);
    if (tail === '') return;
    try {
      await this.client().chat.appendStream({ channel: t.channel, ts, markdown_text: tail });
      state.sent += tail;
    } catch (err) {
      const e = classifySlackError(err, 'chat.appendStream');
      // a lost answer may still have appended the text: only a full replace (stop) knows the truth again
      if (e.classification.kind === 'retry' && e.classification.retryAfterMs === undefined) state.uncertain = true;
      throw e;
    } finally {
      this.remember(ts, state);
    }
  }

  private async stop(thread: ThreadRef, ts: string, content: OutboundContent): Promise<void> {
    const t = slackTarget(thread);
    const state = this.states.get(ts) ?? { sent: '', uncertain: true, hasBlocks: true };
    const full = defuseMentions(content.text);
    const exact = !state.uncertain && !state.hasBlocks && !content.buttons?.length && !content.card && !content.plain && full.startsWith(state.sent);
    const tail = exact ? full.slice(state.sent.length) : '';
    const settled = await this.stopStream(t.channel, ts, tail);
    this.states.delete(ts);
    if (exact && settled) return;
    const body = slackMessageBody(content);
    await slackCall('chat.update', () => this.client().chat.update({ channel: t.channel, ts, text: body.text, blocks: body.blocks }));
  }

  /**
   * True when this stop settled the stream with `tail`; false when Slack had already settled it (it stops
   * idle streams itself), so the tail is missing and an update must follow.
   */
  private async stopStream(channel: string, ts: string, tail: string): Promise<boolean> {
    try {
      await this.client().chat.stopStream({ channel, ts, ...(tail !== '' ? { markdown_text: tail } : {}) });
      return true;
    } catch (err) {
      const e = classifySlackError(err, 'chat.stopStream');
      if (e.code === 'message_not_in_streaming_state') return false;
      throw e;
    }
  }

  private remember(ts: string, state: StreamState): void {
    this.states.delete(ts);
    if (this.states.size >= MEMORY_MAX) this.states.delete(this.states.keys().next().value!);
    this.states.set(ts, state);
  }
}
