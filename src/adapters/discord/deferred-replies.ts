/**
 * DeferredReplies: slash commands are acknowledged at once with a deferred reply ("thinking…"), and that
 * reply is the bot's next message in the conversation: the first post there claims it (oldest first) and
 * fills it through the interaction webhook. Later edits of a filled reply go through the same webhook
 * while its token surely lives (14 of its 15 minutes; its own bucket, outside the global limit), then
 * through the channel. Anything the adapter does in a conversation marks its open replies active, so an
 * unclaimed one can be settled: removed after a silent refusal, confirmed after a silent success.
 */
import type { Clock } from '../contract/clock';

/** An interaction token works for 15 minutes; the adapter stops relying on it a minute early. */
export const TOKEN_SAFE_MS = 14 * 60_000;
const MAX_TOKENS = 10_000;

export interface DeferredReply {
  /** Binding key of the conversation it belongs to. */
  key: string;
  interactionId: string;
  token: string;
  /** The reply message (showing "thinking…" until filled). */
  messageId: string;
  command: string;
  createdAt: number;
  /** The adapter acted in this conversation since the command (typing, posts, edits, reactions). */
  activity: boolean;
}

export class DeferredReplies {
  private readonly open = new Map<string, DeferredReply[]>();
  private readonly tokens = new Map<string, { token: string; createdAt: number }>();

  constructor(private readonly clock: Clock) {}

  add(r: DeferredReply): void {
    this.open.set(r.key, [...(this.open.get(r.key) ?? []), r]);
  }

  /** The oldest reply of the conversation whose token still works, removed from the open list. */
  claim(key: string): DeferredReply | undefined {
    const list = this.open.get(key);
    if (!list) return undefined;
    while (list.length) {
      const r = list.shift()!;
      if (this.fresh(r.createdAt)) {
        this.tidy(key, list);
        return r;
      }
    }
    this.tidy(key, list);
    return undefined;
  }

  /** Puts back a reply whose filling failed for now (it is tried again by the next post). */
  release(r: DeferredReply): void {
    this.open.set(r.key, [r, ...(this.open.get(r.key) ?? [])]);
  }

  /** Removes a reply if it is still open; false when something claimed it meanwhile. */
  take(r: DeferredReply): boolean {
    const list = this.open.get(r.key);
    const i = list?.indexOf(r) ?? -1;
    if (i < 0) return false;
    list!.splice(i, 1);
    this.tidy(r.key, list!);
    return true;
  }

  /** The open reply showing this message, if any. */
  openFor(key: string, messageId: string): DeferredReply | undefined {
    return this.open.get(key)?.find((r) => r.messageId === messageId);
  }

  touch(key: string): void {
    for (const r of this.open.get(key) ?? []) r.activity = true;
  }

  /** The reply now shows content: later edits may use its token. */
  filled(r: DeferredReply): void {
    this.tokens.set(r.messageId, { token: r.token, createdAt: r.createdAt });
    while (this.tokens.size > MAX_TOKENS) this.tokens.delete(this.tokens.keys().next().value!);
  }

  /** The interaction token that can still edit this message, if any. */
  tokenFor(messageId: string): string | undefined {
    const t = this.tokens.get(messageId);
    if (!t) return undefined;
    if (this.fresh(t.createdAt)) return t.token;
    this.tokens.delete(messageId);
    return undefined;
  }

  /** The webhook token died early (Discord said so): use the channel from now on. */
  forget(messageId: string): void {
    this.tokens.delete(messageId);
  }

  private fresh(createdAt: number): boolean {
    return this.clock.now() - createdAt < TOKEN_SAFE_MS;
  }

  private tidy(key: string, list: DeferredReply[]): void {
    if (list.length === 0) this.open.delete(key);
  }
}
