/**
 * The contract between the fake server and its method handlers: a handler gets the call's parameters
 * (raw, as sent) and the call context (uploaded files, the HTTP client), returns the `result` or
 * throws a TgApiError. `MethodWorld` is the slice of server state the handlers read and change.
 */
import type { UploadedFile } from './multipart-form';
import type { CallClient, PollRequest } from './telegram-polling';
import type { StoredChat, TelegramStore } from './telegram-store';
import type { FakeClock, TgUpdate } from './telegram-types';
import type { WebhookConfig } from './telegram-webhook';

export interface CallContext {
  files: Map<string, UploadedFile>;
  client: CallClient;
}

export type MethodHandler = (params: Record<string, unknown>, call: CallContext) => unknown;

export interface WebhookInfo {
  url: string;
  has_custom_certificate: boolean;
  pending_update_count: number;
  max_connections?: number;
  allowed_updates?: string[];
  last_error_date?: number;
  last_error_message?: string;
}

export interface MethodWorld {
  readonly store: TelegramStore;
  readonly clock: FakeClock;
  readonly draftLifetimeMs: number;
  readonly callbackAnswerWindowMs: number;
  /** Flood control for one send/edit into `chat`: returns if admitted, else throws (and counts) a 429. */
  admit(chat: StoredChat): void;
  getUpdates(req: PollRequest, client: CallClient): Promise<TgUpdate[]>;
  setWebhook(config: WebhookConfig, dropPending: boolean): void;
  deleteWebhook(dropPending: boolean): void;
  webhookInfo(): WebhookInfo;
}
