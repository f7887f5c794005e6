/**
 * Outbox: one-off platform messages outside a live reply (approval cards and their decisions, notices,
 * pairing codes, Continue offers, the first message of a scheduled run's new thread). Each call waits for
 * the shared rate governor with final priority and follows the adapter's classification under the writers'
 * one retry policy (retry-policy.ts): retry, degrade (plain text, or post anew when an edited message is
 * gone), ignore, surface (logged, not retried). Known secrets are masked in every text first.
 */
import type { ChannelAdapter } from '../../adapters/contract/adapter';
import type { Clock } from '../../adapters/contract/clock';
import { delay } from '../../adapters/contract/clock';
import type { MessageRef } from '../../adapters/contract/messages';
import type { RateOp } from '../../adapters/contract/rate';
import type { ButtonSpec, OutboundContent } from '../../adapters/contract/surface';
import type { DeliveryTarget } from '../../adapters/contract/delivery-target';
import type { PlatformError } from '../../adapters/contract/errors';
import type { RateScope } from '../../adapters/contract/rate';
import type { ThreadRef } from '../../adapters/contract/thread-ref';
import { backoffMs, FINAL_MAX_TRIES, pauseScopes, type RateGovernor, type SecretRedactor } from '../../adapters/render';
import type { Logger } from 'pino';

export interface OutboxMessage {
  text: string;
  buttons?: ButtonSpec[];
  /** The approval card `text` renders, for adapters that lay cards out natively. */
  card?: OutboundContent['card'];
}

export function outboundOf(m: OutboxMessage, plain = false): OutboundContent {
  return { text: m.text, header: '', answer: '', answerOffset: 0, buttons: m.buttons, plain, final: true, part: 0, ...(m.card ? { card: m.card } : {}) };
}

export class Outbox {
  constructor(private readonly o: { governor: RateGovernor; clock: Clock; logger: Logger; redactor?: SecretRedactor }) {}

  /** Posts a message; undefined when the platform refused it for good (logged). */
  async post(adapter: ChannelAdapter, thread: ThreadRef, message: OutboxMessage): Promise<MessageRef | undefined> {
    const m = this.redacted(message);
    return this.attempt(adapter, () => adapter.rateScopes(thread, 'post'), 'post', (plain) => adapter.post(thread, outboundOf(m, plain)));
  }

  /**
   * Opens a new conversation in a channel target with `message` (adapters with `startConversation`);
   * the returned message's thread is the conversation, or the adapter's last word on why it could not be
   * opened (a scheduled run shows it as its error). There is no thread to draw a budget from yet, so only
   * the retry policy applies to this one message.
   */
  async startConversation(adapter: ChannelAdapter, target: DeliveryTarget, message: OutboxMessage): Promise<{ ref: MessageRef } | { error: string }> {
    const start = adapter.startConversation;
    if (!start) return { error: `the ${adapter.platform} adapter cannot start conversations in a channel` };
    const m = this.redacted(message);
    let last: PlatformError | undefined;
    const ref = await this.attempt(adapter, () => [], 'post', async (plain) => {
      try {
        return await start.call(adapter, target, outboundOf(m, plain));
      } catch (raw) {
        last = adapter.classify(raw);
        throw last;
      }
    });
    return ref ? { ref } : { error: last?.message ?? `the ${adapter.platform} adapter did not open a conversation there` };
  }

  /** Edits a message; when it is gone, posts the content anew (unless told not to). Resolves to the message now showing it. */
  async edit(adapter: ChannelAdapter, ref: MessageRef, message: OutboxMessage, o: { repostIfGone?: boolean } = {}): Promise<MessageRef | undefined> {
    const m = this.redacted(message);
    let gone = false;
    const edited = await this.attempt(adapter, () => adapter.rateScopes(ref.thread, 'edit'), 'edit', async (plain) => {
      await adapter.edit(ref, outboundOf(m, plain));
      return ref;
    }, () => {
      gone = true;
    });
    if (edited) return edited;
    return gone && o.repostIfGone !== false ? this.post(adapter, ref.thread, m) : undefined;
  }

  /** Cards show the model's arguments: secrets are masked there as everywhere else. */
  private redacted(m: OutboxMessage): OutboxMessage {
    return this.o.redactor ? { ...m, text: this.o.redactor.redact(m.text) } : m;
  }

  private async attempt<T>(adapter: ChannelAdapter, scopesOf: () => RateScope[], op: RateOp, call: (plain: boolean) => Promise<T>, onGone?: () => void): Promise<T | undefined> {
    let plain = false;
    for (let tries = 1; tries <= FINAL_MAX_TRIES; tries++) {
      const scopes = scopesOf();
      await this.o.governor.acquire(scopes, { priority: 'final' });
      try {
        return await call(plain);
      } catch (raw) {
        const err = adapter.classify(raw);
        const c = err.classification;
        if (c.kind === 'ignore') return undefined;
        if (c.kind === 'degrade' && c.reason === 'format' && !plain) {
          plain = true;
          continue;
        }
        if (c.kind === 'degrade' && c.reason === 'gone') {
          onGone?.();
          return undefined;
        }
        if (c.kind === 'retry' && tries < FINAL_MAX_TRIES) {
          // with a server delay the paused buckets make the next acquire wait; without one, back off
          if (c.retryAfterMs !== undefined) this.o.governor.pause(pauseScopes(scopes, c.scope), c.retryAfterMs);
          else await delay(this.o.clock, backoffMs(tries));
          continue;
        }
        this.o.logger.warn({ platform: adapter.platform, op, error: err.message, kind: c.kind }, 'platform message not delivered');
        return undefined;
      }
    }
    return undefined;
  }
}
