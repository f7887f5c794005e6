/**
 * The Bolt listeners of the adapter: `app_mention` and `message` events (and messages in assistant threads)
 * become InboundMessages, `block_actions` on our buttons become ActionEvents (acked at once, before the
 * gateway runs), `assistant_thread_started` offers suggested prompts and is handed on as the thread's
 * opening (this adapter alone remembers the thread is an assistant's, so its instance should own it). Each event acts once: a bounded set of
 * recent event_ids drops redeliveries (X-Slack-Retry-Num, Socket Mode retry_attempt), which Bolt does not;
 * the gateway's SQLite dedupe is the durable second line. The person answered next in a thread is noted for
 * native streams (their recipient ids).
 */
import type { App } from '@slack/bolt';
import type { Clock } from '../contract/clock';
import type { InboundDispatcher } from '../contract/inbound-dispatcher';
import { bindingKey, type ThreadRef } from '../contract/thread-ref';
import { blockActionToEvent } from './actions';
import { assistantFor, SUGGESTED_PROMPTS } from './assistant';
import { botFileFetcher } from './attachments';
import { ACTION_ID_PATTERN } from './blocks';
import type { SlackAdapterConfig } from './config';
import { eventToInbound, type InboundContext } from './inbound';
import type { SlackOutbound } from './outbound';
import type { SlackStreams } from './stream';
import { slackThread } from './thread';

export const SEEN_EVENTS_MAX = 10_000;

export interface ListenerDeps {
  app: App;
  identity: { team: string; botUserId: string };
  config: SlackAdapterConfig;
  clock: Clock;
  dispatcher: InboundDispatcher;
  streams: SlackStreams;
  outbound: SlackOutbound;
  botToken: string;
  logError(err: unknown, what: string): void;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export class SlackListeners {
  /** Epoch ms of the last event Slack delivered (any kind). */
  lastEventAt?: number;
  private readonly seen = new Set<string>();
  private readonly assistantThreads = new Set<string>();
  private readonly ctx: InboundContext;

  constructor(private readonly d: ListenerDeps) {
    this.ctx = { botUserId: d.identity.botUserId, threadFollowUp: d.config.threadFollowUp, fetchFile: botFileFetcher(d.botToken) };
    this.register(d.app);
  }

  isAssistantThread(thread: ThreadRef): boolean {
    return this.assistantThreads.has(bindingKey(thread));
  }

  private register(app: App): void {
    app.assistant(assistantFor({
      threadStarted: async (t, offer) => {
        this.touch();
        const thread = slackThread(t.team ?? this.d.identity.team, t.channel, t.threadTs);
        this.remember(this.assistantThreads, bindingKey(thread));
        this.d.streams.noteRecipient(thread, t.user, t.team ?? this.d.identity.team);
        this.d.dispatcher.deliver({ kind: 'opened', thread });
        await offer(SUGGESTED_PROMPTS).catch((err: unknown) => this.d.logError(err, 'assistant.threads.setSuggestedPrompts'));
      },
      userMessage: (event, body) => this.onMessage(event, body),
    }));
    app.event('app_mention', async ({ event, body }) => this.onMessage(event, body as unknown as Record<string, unknown>));
    app.event('message', async ({ event, body }) => this.onMessage(event, body as unknown as Record<string, unknown>));
    app.action(ACTION_ID_PATTERN, async ({ ack, body }) => {
      await ack();
      this.onAction(body);
    });
    app.error(async (err) => this.d.logError(err, 'event handling'));
  }

  private touch(): void {
    this.lastEventAt = this.d.clock.now();
  }

  /** False when this event id was seen before (a redelivery). */
  private firstTime(eventId: string): boolean {
    if (this.seen.has(eventId)) return false;
    this.remember(this.seen, eventId);
    return true;
  }

  private remember(set: Set<string>, key: string): void {
    if (set.size >= SEEN_EVENTS_MAX) set.delete(set.values().next().value!);
    set.add(key);
  }

  private async onMessage(event: unknown, body: Record<string, unknown>): Promise<void> {
    this.touch();
    const eventId = str(body.event_id);
    if (!eventId || !this.firstTime(eventId)) return;
    const team = str(body.team_id) ?? this.d.identity.team;
    const msg = eventToInbound(event, { eventId, team }, this.ctx);
    if (!msg) return;
    const userTeam = str((event as { user_team?: unknown }).user_team);
    const m = userTeam && userTeam !== team ? { ...msg, user: { ...msg.user, team: userTeam } } : msg;
    this.d.streams.noteRecipient(m.thread, m.user.id, userTeam ?? team);
    this.d.dispatcher.deliver({ kind: 'message', message: m });
  }

  private onAction(body: unknown): void {
    this.touch();
    const action = blockActionToEvent(body, () => (channel, user, text, threadTs) => this.d.outbound.ephemeralIn(channel, user, text, threadTs));
    if (!action) return;
    if (!this.firstTime(`action:${action.eventId}`)) return;
    this.d.streams.noteRecipient(action.thread, action.user.id, action.thread.platform === 'slack' ? action.thread.team : this.d.identity.team);
    this.d.dispatcher.deliver({ kind: 'action', action });
  }
}
