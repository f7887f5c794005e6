/**
 * FakeTelegramServer: a Telegram Bot API stand-in on 127.0.0.1 for end-to-end tests and benchmarks.
 * Speaks the real HTTP protocol (`/bot<token>/<method>` via GET query, JSON, urlencoded or multipart;
 * `/file/bot<token>/<path>` downloads), long polling and webhooks, Telegram-like flood control and
 * forced faults. The test side injects user messages / button presses, reads chats as a user sees
 * them, inspects the call log, and awaits conditions with `waitFor` (event-driven, no sleeps).
 * Events: 'call' (CallRecord), 'update' (queued Update), 'delivery' (webhook attempt), 'change' (any).
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { FakeServerBase } from './fake-server-base';
import { sendRaw } from './http-body';
import { closeNow, listenOnLoopback } from './loopback-http';
import { TgApiError, tgErrors } from './telegram-errors';
import { FaultInjector, isApiError, type FaultSpec } from './telegram-faults';
import { chatIdOf, clientOf, readCallInput, sendJson } from './telegram-http';
import { callbackQuery, userMessage, type InjectCallbackInput, type InjectMessageInput } from './telegram-inject';
import { answeredCall, CallLog, type CallAnswer, type CallRecord } from './telegram-call-log';
import { buttonsOf } from './telegram-markup';
import type { CallContext, MethodHandler, MethodWorld, WebhookInfo } from './telegram-method-types';
import { botMethods } from './telegram-methods-bot';
import { messageMethods } from './telegram-methods-messages';
import type { UploadedFile } from './multipart-form';
import { LongPoller, type CallClient, type PollConflictPolicy, type PollRequest } from './telegram-polling';
import { RateLimiter, type RateLimitOptions } from './telegram-rate-limit';
import { TelegramStore, type CallbackAnswerView, type ChatInput, type ChatView, type MessageView, type StoredChat, type UserInput } from './telegram-store';
import { realClock, type FakeClock, type TgBotCommand, type TgChat, type TgFile, type TgUpdate, type TgUser } from './telegram-types';
import { UpdateQueue } from './telegram-updates';
import { WebhookDeliverer, type DeliveryAttempt, type WebhookConfig } from './telegram-webhook';

export interface FakeTelegramOptions {
  /** Bot token; the part before ':' is the bot's user id. Default "123456789:FAKE-telegram-token". */
  token?: string;
  botUsername?: string;
  botFirstName?: string;
  /** Clock for flood control, message dates, draft lifetime and answer latency. Default: real time. */
  clock?: FakeClock;
  /** Flood-control settings, or false to disable it. */
  rateLimits?: RateLimitOptions | false;
  /** Who gets 409 when two getUpdates overlap. Default 'terminate-pending' (what Telegram does). */
  pollConflict?: PollConflictPolicy;
  /** How long a newcomer waits for an aborted held poll to be noticed before deciding it conflicts. Default 100 ms. */
  pollConflictGraceMs?: number;
  /** Delay before redelivering a webhook update that was not answered 2xx. Default 100 ms. */
  webhookRetryDelayMs?: number;
  webhookTimeoutMs?: number;
  /** Callback queries answered later than this get "query is too old". Default 15 s. */
  callbackAnswerWindowMs?: number;
  /** A draft disappears this long after its last update. Default 30 s. */
  draftLifetimeMs?: number;
  canReadAllGroupMessages?: boolean;
  hasTopicsEnabled?: boolean;
  /** Keep every call in `calls` (default). Long benchmarks can turn this off; counts and events remain. */
  recordCalls?: boolean;
}

type CallOutcome = { status: number; body: unknown } | { raw: { status: number; body: string; contentType: string } } | 'disconnect';

const DEFAULT_TOKEN = '123456789:FAKE-telegram-token';

export class FakeTelegramServer extends FakeServerBase<CallRecord, FaultSpec, RateLimitOptions> implements MethodWorld {
  readonly store: TelegramStore;
  readonly clock: FakeClock;
  readonly draftLifetimeMs: number;
  readonly callbackAnswerWindowMs: number;
  readonly token: string;
  /** Every webhook delivery attempt, in order. */
  readonly deliveries: DeliveryAttempt[] = [];

  protected readonly log: CallLog;
  protected readonly limiter: RateLimiter;
  protected readonly faults = new FaultInjector();
  private readonly queue = new UpdateQueue();
  private readonly poller: LongPoller;
  private readonly handlers = new Map<string, { name: string; run: MethodHandler }>();
  private readonly options: FakeTelegramOptions;
  private webhook: WebhookDeliverer | undefined;
  private server: http.Server | undefined;
  private root: string | undefined;
  private seq = 0;
  private rateLimitedTotal = 0;
  private stopping = false;

  constructor(options: FakeTelegramOptions = {}) {
    super();
    this.options = options;
    this.log = new CallLog(options.recordCalls !== false);
    this.token = options.token ?? DEFAULT_TOKEN;
    const botId = Number(/^(\d+):/.exec(this.token)?.[1]);
    if (!Number.isSafeInteger(botId)) throw new Error(`FakeTelegramServer: token must look like "<bot id>:<secret>", got ${this.token}`);
    this.clock = options.clock ?? realClock;
    this.draftLifetimeMs = options.draftLifetimeMs ?? 30_000;
    this.callbackAnswerWindowMs = options.callbackAnswerWindowMs ?? 15_000;
    const bot: TgUser = { id: botId, is_bot: true, first_name: options.botFirstName ?? 'Fake Bot', username: options.botUsername ?? 'fake_test_bot' };
    this.store = new TelegramStore(bot, this.clock);
    this.limiter = new RateLimiter(options.rateLimits, this.clock);
    this.poller = new LongPoller(this.queue, options.pollConflict ?? 'terminate-pending', options.pollConflictGraceMs ?? 100, () => this.changed());
    const all = {
      ...messageMethods(this),
      ...botMethods(this, {
        canJoinGroups: true,
        canReadAllGroupMessages: options.canReadAllGroupMessages ?? false,
        hasTopicsEnabled: options.hasTopicsEnabled ?? false,
      }),
    };
    for (const [name, run] of Object.entries(all)) this.handlers.set(name.toLowerCase(), { name, run });
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  async start(): Promise<{ apiRoot: string; token: string }> {
    if (this.server || this.stopping) throw new Error('FakeTelegramServer can be started once');
    const server = http.createServer((req, res) => void this.handle(req, res));
    const port = await listenOnLoopback(server);
    this.server = server;
    this.root = `http://127.0.0.1:${port}`;
    return { apiRoot: this.root, token: this.token };
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.poller.close();
    this.webhook?.stop();
    this.webhook = undefined;
    this.waiter.rejectAll(new Error('FakeTelegramServer stopped'));
    const server = this.server;
    this.server = undefined;
    if (server) await closeNow(server);
  }

  /** e.g. "http://127.0.0.1:40123" — pass as grammY's `client.apiRoot`. */
  get apiRoot(): string {
    if (!this.root) throw new Error('FakeTelegramServer not started');
    return this.root;
  }

  get botUser(): TgUser {
    return { ...this.store.bot };
  }

  // ---- test-side: acting as users -------------------------------------------------------------

  /** A user posts a message; returns the Update the bot will receive. */
  injectMessage(input: InjectMessageInput): TgUpdate {
    const msg = userMessage(this.store, input);
    return this.enqueue({ message: this.store.toWire(msg) });
  }

  /** A user presses an inline button (data need not be on the message; see `clickButton`). */
  injectCallbackQuery(input: InjectCallbackInput): TgUpdate {
    return this.enqueue(callbackQuery(this.store, input, false).body);
  }

  /** Presses the button whose text or callback_data is `label` on a message; throws if there is none. */
  clickButton(chatId: number, messageId: number, label: string, from?: UserInput): TgUpdate {
    const msg = this.store.chats.get(chatId)?.messages.get(messageId);
    const button = buttonsOf(msg?.reply_markup).find((b) => b.callback_data !== undefined && (b.text === label || b.callback_data === label));
    if (!button) throw new Error(`clickButton: no callback button "${label}" on message ${messageId} in chat ${chatId}`);
    return this.enqueue(callbackQuery(this.store, { message: { message_id: messageId, chat_id: chatId }, data: button.callback_data!, from }, true).body);
  }

  /** Queues any other update body (e.g. `{ my_chat_member: … }`); update_id is assigned here. */
  injectUpdate(body: Omit<TgUpdate, 'update_id'>): TgUpdate {
    return this.enqueue(body);
  }

  registerChat(input: ChatInput): TgChat {
    const chat = this.store.chat(input);
    this.changed();
    return { ...chat.chat };
  }

  addForumTopic(chatId: number, threadId: number): void {
    this.requireKnownChat(chatId).topics.add(threadId);
  }

  /** From now on sends to this chat fail with 403 (blocked by the user / kicked from the group). */
  setBotBlocked(chatId: number, blocked: boolean): void {
    this.requireKnownChat(chatId).botBlocked = blocked;
  }

  /** Makes a file downloadable through getFile; returns its File object. */
  registerFile(data: Buffer | string, opts: { fileName?: string; mimeType?: string } = {}): TgFile {
    const f = this.store.registerFile(typeof data === 'string' ? Buffer.from(data) : data, opts);
    return { file_id: f.file_id, file_unique_id: f.file_unique_id, file_size: f.data.length, file_path: f.file_path };
  }

  // ---- test-side: observing ---------------------------------------------------------------------

  /** The chat as its users see it; throws for a chat the fake has never seen. */
  chatState(chatId: number): ChatView {
    return this.store.chatView(this.requireKnownChat(chatId), this.draftLifetimeMs);
  }

  /** Visible messages the bot sent into a chat, oldest first. */
  botMessages(chatId: number): MessageView[] {
    const chat = this.store.chats.get(chatId);
    if (!chat) return [];
    const out: MessageView[] = [];
    for (const m of chat.messages.values()) if (m.fromBot) out.push(this.store.view(m));
    return out;
  }

  callbackQuery(id: string): CallbackAnswerView | undefined {
    return this.store.callbackView(id);
  }

  callbackQueries(): CallbackAnswerView[] {
    return [...this.store.callbacks.keys()].map((id) => this.callbackQuery(id)!);
  }

  myCommands(scope?: unknown, languageCode?: string): TgBotCommand[] {
    return this.handlers.get('getmycommands')!.run({ scope, language_code: languageCode }, this.detachedContext()) as TgBotCommand[];
  }

  /** 429s answered, for one chat or in total. */
  rateLimitedCount(chatId?: number): number {
    return chatId === undefined ? this.rateLimitedTotal : (this.store.chats.get(chatId)?.rateLimited ?? 0);
  }

  /** Updates queued for the bot and not yet confirmed (or, with a webhook, not yet delivered). */
  pendingUpdateCount(): number {
    return this.webhook ? this.webhook.pending : this.queue.size;
  }

  /** Highest update_id the bot has confirmed via getUpdates offset. */
  get confirmedUpdateId(): number {
    return this.queue.confirmedUpTo;
  }

  /** True while a long-poll getUpdates is being held open. */
  get isPolling(): boolean {
    return this.poller.polling;
  }

  // ---- MethodWorld (used by the handlers) --------------------------------------------------------

  admit(chat: StoredChat): void {
    const t = chat.chat.type;
    const verdict = this.limiter.admit(chat.chat.id, t === 'group' || t === 'supergroup' || t === 'channel');
    if (!verdict.ok) throw tgErrors.tooManyRequests(verdict.retryAfter);
  }

  getUpdates(req: PollRequest, client: CallClient): Promise<TgUpdate[]> {
    if (this.webhook) return Promise.reject(tgErrors.webhookActive());
    return this.poller.getUpdates(req, client);
  }

  setWebhook(config: WebhookConfig, dropPending: boolean): void {
    if (this.webhook) this.queue.restore(this.webhook.stop());
    if (config.allowedUpdates !== undefined) this.queue.setAllowed(config.allowedUpdates);
    if (dropPending) this.queue.clear();
    this.webhook = new WebhookDeliverer(config, {
      retryDelayMs: this.options.webhookRetryDelayMs ?? 100,
      timeoutMs: this.options.webhookTimeoutMs ?? 10_000,
      now: () => this.clock.now(),
      onReply: async (body) => {
        const { method, ...params } = body;
        await this.dispatch(String(method), params, new Map(), this.detachedContext().client, 'webhook-reply');
      },
      onAttempt: (a) => {
        this.deliveries.push(a);
        this.emit('delivery', a);
        this.changed();
      },
    });
    for (const u of this.queue.drain()) this.webhook.enqueue(u);
    this.poller.abortHeld(tgErrors.webhookActive());
  }

  deleteWebhook(dropPending: boolean): void {
    if (this.webhook) {
      this.queue.restore(this.webhook.stop());
      this.webhook = undefined;
    }
    if (dropPending) this.queue.clear();
  }

  webhookInfo(): WebhookInfo {
    return this.webhook ? this.webhook.info() : { url: '', has_custom_certificate: false, pending_update_count: this.queue.size };
  }

  // ---- internals ----------------------------------------------------------------------------------

  private requireKnownChat(chatId: number): StoredChat {
    const chat = this.store.chats.get(chatId);
    if (!chat) throw new Error(`FakeTelegramServer: chat ${chatId} has never been seen (inject a message or registerChat first)`);
    return chat;
  }

  private enqueue(body: Omit<TgUpdate, 'update_id'>): TgUpdate {
    const update = this.queue.create(body);
    if (this.webhook) {
      if (this.queue.isAllowed(update)) this.webhook.enqueue(update);
    } else if (this.queue.push(update)) {
      this.poller.notify();
    }
    this.emit('update', update);
    this.changed();
    return update;
  }

  private detachedContext(): CallContext {
    return { files: new Map(), client: { gone: false, onGone: () => undefined } };
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (file) {
      const stored = file[1] === this.token ? this.store.filesByPath.get(decodeURIComponent(file[2])) : undefined;
      if (!stored) return sendJson(res, 404, tgErrors.notFound().body());
      return sendRaw(res, 200, stored.data, stored.mime_type ?? 'application/octet-stream');
    }
    const call = /^\/bot([^/]*)\/([^/]*)$/.exec(url.pathname);
    let input: { params: Record<string, unknown>; files: Map<string, UploadedFile> };
    try {
      input = await readCallInput(req, url);
    } catch (err) {
      const e = err instanceof TgApiError ? err : tgErrors.badRequest((err as Error).message);
      return sendJson(res, e.code, e.body());
    }
    if (!call) return sendJson(res, 404, tgErrors.notFound().body());
    const client = clientOf(res);
    const outcome = call[1] === this.token
      ? await this.dispatch(call[2], input.params, input.files, client, 'http')
      : this.record(call[2], input.params, this.clock.now(), performance.now(), tgErrors.unauthorized(), 'http', false, client);
    if (outcome === 'disconnect') {
      res.socket?.destroy();
      return;
    }
    if ('raw' in outcome) return sendRaw(res, outcome.raw.status, outcome.raw.body, outcome.raw.contentType);
    sendJson(res, outcome.status, outcome.body);
  }

  private async dispatch(
    methodName: string,
    params: Record<string, unknown>,
    files: Map<string, UploadedFile>,
    client: CallClient,
    via: CallRecord['via'],
  ): Promise<CallOutcome> {
    const at = this.clock.now();
    const started = performance.now();
    const handler = this.handlers.get(methodName.toLowerCase());
    if (!handler) return this.record(methodName, params, at, started, tgErrors.notFound(), via, false, client);
    const chatId = chatIdOf(params.chat_id);
    const fault = this.faults.take({ method: handler.name, chatId });
    if (fault !== undefined) {
      if (isApiError(fault)) return this.record(handler.name, params, at, started, fault, via, true, client);
      this.record(handler.name, params, at, started, fault, via, true, client);
      return fault === 'disconnect'
        ? 'disconnect'
        : { raw: { status: fault.httpStatus, body: fault.body ?? '', contentType: fault.contentType ?? 'text/html' } };
    }
    let result: unknown;
    try {
      result = await handler.run(params, { files, client });
    } catch (err) {
      const e = err instanceof TgApiError ? err : tgErrors.serverError(500, `Internal Server Error: fake server failed: ${(err as Error).message}`);
      return this.record(handler.name, params, at, started, e, via, false, client);
    }
    return this.record(handler.name, params, at, started, { result }, via, false, client);
  }

  private record(
    method: string,
    params: Record<string, unknown>,
    at: number,
    started: number,
    answer: CallAnswer,
    via: CallRecord['via'],
    forced: boolean,
    client: CallClient,
  ): { status: number; body: unknown } {
    const chatId = chatIdOf(params.chat_id);
    const facts = { seq: ++this.seq, method, params, chatId, at, durationMs: performance.now() - started, via, forced, aborted: client.gone };
    const { rec, reply } = answeredCall(facts, answer);
    if (answer instanceof TgApiError && answer.code === 429) {
      this.rateLimitedTotal++;
      const chat = chatId === undefined ? undefined : this.store.findChat(chatId);
      if (chat) chat.rateLimited++;
    }
    this.log.add(rec);
    this.emit('call', rec);
    this.changed();
    return reply;
  }
}

export type { CallbackAnswerView, CallRecord };
