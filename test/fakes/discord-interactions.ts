/**
 * The fake's record of every interaction it sent the bot (slash commands, button clicks): who and
 * where, when (clock and performance.now), each callback attempt with its outcome, the first
 * acknowledgement, the original response message and follow-ups. Deadlines are read against the clock
 * when a callback arrives: 3 s to acknowledge, 15 minutes for the token's webhook.
 */

export interface CallbackAttempt {
  type: number;
  at: number;
  perfAt: number;
  status: number;
  code?: number;
}

export interface InteractionRecord {
  id: string;
  token: string;
  /** 2 = application command, 3 = message component. */
  type: number;
  channelId: string;
  guildId?: string;
  userId: string;
  commandName?: string;
  commandId?: string;
  customId?: string;
  /** Components: the message the clicked button is on. */
  messageId?: string;
  createdAt: number;
  createdPerf: number;
  callbacks: CallbackAttempt[];
  ack?: { type: number; at: number; perfAt: number };
  /** The response message (types 4/5), or the component's message (types 6/7). */
  originalMessageId?: string;
  /** Set by a type 5 ack until the first edit of @original fills the message in. */
  loading?: boolean;
  followupIds: string[];
  /** Type 9: the modal the bot opened. */
  modal?: unknown;
  /** Type 8: the choices the bot offered. */
  choices?: unknown;
}

export type InteractionState = 'pending' | 'acknowledged' | 'expired';

export class InteractionBook {
  private byId = new Map<string, InteractionRecord>();
  private byToken = new Map<string, InteractionRecord>();

  constructor(readonly ackWindowMs: number, readonly tokenLifetimeMs: number) {}

  add(rec: InteractionRecord): void {
    this.byId.set(rec.id, rec);
    this.byToken.set(rec.token, rec);
  }

  get(id: string): InteractionRecord | undefined {
    return this.byId.get(id);
  }

  withToken(token: string): InteractionRecord | undefined {
    return this.byToken.get(token);
  }

  all(): InteractionRecord[] {
    return [...this.byId.values()];
  }

  state(rec: InteractionRecord, now: number): InteractionState {
    if (rec.ack) return now - rec.createdAt > this.tokenLifetimeMs ? 'expired' : 'acknowledged';
    return now - rec.createdAt > this.ackWindowMs ? 'expired' : 'pending';
  }
}
