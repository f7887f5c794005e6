/**
 * One thing the fake Slack sends the app (an event, an interactivity payload, a slash command, a
 * url_verification challenge) and every attempt to deliver it, over HTTP or Socket Mode. `done`
 * settles once the delivery is acknowledged (2xx / envelope ack) or Slack would give up; it never
 * rejects, so a test may leave it unawaited.
 */

export type DeliveryKind = 'events_api' | 'interactive' | 'slash_commands' | 'url_verification';

export interface DeliveryAttempt {
  /** 0 for the first try, then 1, 2, 3 (X-Slack-Retry-Num / retry_attempt). */
  retryNum: number;
  retryReason?: string;
  /** Clock ms and performance.now() when the attempt was sent. */
  at: number;
  perfAt: number;
  /** HTTP: the answer's status; absent on timeout / connection errors. */
  status?: number;
  /** HTTP: the answer's body. */
  body?: string;
  headers?: Record<string, string>;
  error?: string;
  durationMs?: number;
  /** Socket Mode: the connection the envelope went to, and its envelope_id. */
  connectionId?: number;
  envelopeId?: string;
  acked: boolean;
}

export interface SlackDelivery {
  id: number;
  kind: DeliveryKind;
  mode: 'http' | 'socket';
  /** Events API deliveries: the event_id every retry repeats. */
  eventId?: string;
  /** The payload as the app receives it (envelope for events, payload object for interactivity). */
  body: Record<string, unknown>;
  attempts: DeliveryAttempt[];
  state: 'pending' | 'acked' | 'failed';
  /** Socket Mode: the `payload` the app put in its ack (slash commands, view submissions). */
  ackPayload?: unknown;
  done: Promise<SlackDelivery>;
}

export interface DeliveryHandle {
  delivery: SlackDelivery;
  settle(state: 'acked' | 'failed'): void;
}

let seq = 0;

export function newDelivery(kind: DeliveryKind, mode: 'http' | 'socket', body: Record<string, unknown>, eventId?: string): DeliveryHandle {
  let resolve!: (d: SlackDelivery) => void;
  const done = new Promise<SlackDelivery>((r) => (resolve = r));
  const delivery: SlackDelivery = { id: ++seq, kind, mode, body, attempts: [], state: 'pending', done };
  if (eventId !== undefined) delivery.eventId = eventId;
  Object.defineProperty(delivery, 'done', { enumerable: false });
  return {
    delivery,
    settle(state) {
      if (delivery.state !== 'pending') return;
      delivery.state = state;
      resolve(delivery);
    },
  };
}
