/**
 * The delivery ledger's shapes: every outbound platform message of a reply, card or notice with its state,
 * attempts and what it last showed (restart recovery finalises from it), and the timeline of one Task's
 * reply as events (the inbound message, the Task's start, each post, edit, draft, retry, 429 and failure),
 * which the dashboard draws and housekeeping prunes after a retention period.
 */
export type DeliveryPurpose = 'live' | 'final' | 'card' | 'notice' | 'schedule';
export type DeliveryState = 'pending' | 'sent' | 'failed' | 'finalized' | 'interrupted';
export interface DeliveryRow {
  id: number;
  platform: string;
  chat: string;
  platform_message_id: string | null;
  session_id: string | null;
  task_id: string | null;
  purpose: DeliveryPurpose;
  state: DeliveryState;
  attempts: number;
  last_error: string | null;
  /** What the message last showed (Markdown, no live status line), for finalising it after a crash. */
  shown: string | null;
  created_at: number;
  updated_at: number;
}
export interface NewDelivery {
  platform: string;
  chat: string;
  purpose: DeliveryPurpose;
  session_id?: string | null;
  task_id?: string | null;
  platform_message_id?: string | null;
  state?: DeliveryState;
}
export interface DeliveryStore {
  createDelivery(d: NewDelivery): Promise<DeliveryRow>;
  getDelivery(id: number): Promise<DeliveryRow | undefined>;
  /** One more attempt succeeded: `sent` with the platform's message id. */
  markDeliverySent(id: number, platformMessageId: string): Promise<DeliveryRow | undefined>;
  /** One more attempt failed; `final` gives up (`failed`), otherwise the state is kept for a retry. */
  markDeliveryAttemptFailed(id: number, error: string, final: boolean): Promise<DeliveryRow | undefined>;
  setDeliveryState(id: number, state: DeliveryState): Promise<DeliveryRow | undefined>;
  /** Records what the message shows now. */
  setDeliveryShown(id: number, shown: string): Promise<void>;
  /** Deliveries still `pending` or `sent` (a reply a restart must finalise), oldest first. */
  listOpenDeliveries(filter?: { purpose?: DeliveryPurpose; platform?: string }): Promise<DeliveryRow[]>;
  /** Oldest first unless `newest_first`. */
  listDeliveries(filter?: { session_id?: string; task_id?: string; platform?: string; chat?: string; state?: DeliveryState; newest_first?: boolean; limit?: number; offset?: number }): Promise<DeliveryRow[]>;
  /** Appends a timeline event; never fails the reply (the caller logs a failed write). */
  addDeliveryEvent(e: NewDeliveryEvent): Promise<void>;
  /** A Task's timeline, oldest first. */
  listDeliveryEvents(taskId: string, limit?: number): Promise<DeliveryEventRow[]>;
  /** Removes timeline events older than `before` (epoch ms); returns how many. */
  pruneDeliveryEvents(before: number): Promise<number>;
}

/** One step of a reply's timeline. `rate_limited` is a retry the platform asked for with a wait (a 429). */
export type DeliveryEventKind =
  | 'inbound' | 'task_started'
  | 'post' | 'edit' | 'draft' | 'delete' | 'stream_start' | 'stream_append' | 'stream_stop'
  | 'retry' | 'rate_limited' | 'degraded' | 'failed';
export interface DeliveryEventRow {
  id: number;
  task_id: string;
  /** The ledger row of the message, once it has one. */
  delivery_id: number | null;
  /** Which message of a split reply (0 = the first); null for events of the Task itself. */
  part: number | null;
  kind: DeliveryEventKind;
  /** What happened, in words (the platform's error, the wait a 429 asked for, the message id posted). */
  detail: string | null;
  at: number;
}
export type NewDeliveryEvent = Omit<DeliveryEventRow, 'id' | 'at'> & { at?: number };
