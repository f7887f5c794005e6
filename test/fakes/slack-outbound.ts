/**
 * Routes what the fake Slack sends the app over the configured transport: over HTTP as Slack encodes
 * each kind (Events API and url_verification as JSON, interactivity as form field `payload=<json>`,
 * slash commands as form fields), or over Socket Mode as envelopes (`events_api`, `interactive`,
 * `slash_commands`). Only Events API deliveries are retried. Every delivery is recorded.
 */
import { newDelivery, type DeliveryKind, type SlackDelivery } from './slack-delivery';
import { eventCallback, type EventCallback } from './slack-events';
import type { Forgery, HttpDeliverer } from './slack-http-delivery';
import type { SocketHub } from './slack-socket';
import type { SlackStore } from './slack-store';

export interface SendOptions {
  /** HTTP only: send with a forged signature or a stale timestamp. */
  forge?: Forgery;
  /** Events API: retry when unacknowledged (default true). */
  retry?: boolean;
}

export interface OutboundConfig {
  store: SlackStore;
  verificationToken: string;
  mode(): 'http' | 'socket';
  eventsUrl(): string | undefined;
  interactivityUrl(): string | undefined;
  http: HttpDeliverer;
  socket: SocketHub;
  record(d: SlackDelivery): void;
}

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';

export class Outbound {
  constructor(private readonly c: OutboundConfig) {}

  /** Wraps an inner event in an `event_callback` envelope and delivers it. */
  event(inner: Record<string, unknown>, opts: SendOptions = {}): SlackDelivery {
    return this.envelope(eventCallback(this.c.store, this.c.verificationToken, inner), opts);
  }

  /** Delivers an already-built Events API body (its event_id is kept). */
  envelope(body: EventCallback | Record<string, unknown>, opts: SendOptions = {}, retryNum = 0, retryReason?: string): SlackDelivery {
    const eventId = typeof body.event_id === 'string' ? body.event_id : undefined;
    const h = newDelivery('events_api', this.c.mode(), body as Record<string, unknown>, eventId);
    this.c.record(h.delivery);
    const retry = opts.retry !== false;
    if (h.delivery.mode === 'socket') this.c.socket.deliver(h, 'events_api', h.delivery.body, false, retry, retryNum);
    else this.c.http.send(this.url('events'), h, JSON.stringify(body), JSON_TYPE, { retry, forge: opts.forge, retryNum, retryReason });
    return h.delivery;
  }

  interactive(payload: Record<string, unknown>, opts: SendOptions = {}): SlackDelivery {
    const h = newDelivery('interactive', this.c.mode(), payload);
    this.c.record(h.delivery);
    if (h.delivery.mode === 'socket') this.c.socket.deliver(h, 'interactive', payload, payload.type !== 'block_actions', false);
    else this.c.http.send(this.url('interactivity'), h, `payload=${encodeURIComponent(JSON.stringify(payload))}`, FORM_TYPE, { retry: false, forge: opts.forge });
    return h.delivery;
  }

  slash(fields: Record<string, string>, opts: SendOptions = {}): SlackDelivery {
    const h = newDelivery('slash_commands', this.c.mode(), fields);
    this.c.record(h.delivery);
    if (h.delivery.mode === 'socket') this.c.socket.deliver(h, 'slash_commands', fields, true, false);
    else this.c.http.send(this.url('interactivity'), h, new URLSearchParams(fields).toString(), FORM_TYPE, { retry: false, forge: opts.forge });
    return h.delivery;
  }

  /** The Request URL check Slack runs when the URL is saved (HTTP only). */
  urlVerification(challenge: string, opts: SendOptions = {}): SlackDelivery {
    const body = { token: this.c.verificationToken, challenge, type: 'url_verification' };
    const h = newDelivery('url_verification' as DeliveryKind, 'http', body);
    this.c.record(h.delivery);
    this.c.http.send(this.url('events'), h, JSON.stringify(body), JSON_TYPE, { retry: false, forge: opts.forge });
    return h.delivery;
  }

  /** Sends an earlier Events API delivery again as retry `retryNum` (same event_id). */
  redeliver(d: SlackDelivery, retryNum: number, reason: string): SlackDelivery {
    if (d.kind !== 'events_api') throw new Error('FakeSlackServer: only Events API deliveries are redelivered');
    return this.envelope(d.body, { retry: false }, retryNum, reason);
  }

  private url(which: 'events' | 'interactivity'): string {
    const url = which === 'events' ? this.c.eventsUrl() : (this.c.interactivityUrl() ?? this.c.eventsUrl());
    if (!url) throw new Error('FakeSlackServer: HTTP delivery needs a request URL (options.requestUrl or setRequestUrl)');
    return url;
  }
}
