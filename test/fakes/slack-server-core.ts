/**
 * The machinery behind FakeSlackServer: one HTTP server on 127.0.0.1 (ephemeral port) routing the Web
 * API, uploads, `url_private` downloads, `response_url`s and Socket Mode upgrades; the shared state,
 * call log, faults and rate limiter (their test-side controls and `waitFor` from FakeServerBase); and
 * delivery over HTTP or Socket Mode. The public test-side API (injectors, views) is slack-server.ts.
 */
import http from 'node:http';
import { FakeServerBase } from './fake-server-base';
import { sendRaw } from './http-body';
import { closeNow, listenOnLoopback } from './loopback-http';
import { SlackApi, type AccountState } from './slack-api';
import { DEFAULT_BLOCK_LIMITS, type BlockLimits } from './slack-blocks';
import { SlackCallLog, type SlackCallRecord } from './slack-call-log';
import type { SlackDelivery } from './slack-delivery';
import { messageEvent } from './slack-events';
import { slackErrors } from './slack-errors';
import { SlackFaultInjector, type SlackFaultSpec } from './slack-faults';
import { HttpDeliverer } from './slack-http-delivery';
import { DEFAULT_MESSAGE_LIMITS, type MessageLimits, type MethodSpec, type SlackWorld } from './slack-method-types';
import { chatMethods } from './slack-methods-chat';
import { fileMethods, handleDownload, handleUpload } from './slack-methods-files';
import { infoMethods } from './slack-methods-info';
import { streamMethods } from './slack-methods-stream';
import { Outbound } from './slack-outbound';
import { SlackRateLimiter, type RateLimitConfig } from './slack-rate-limit';
import { ResponseUrls } from './slack-response-url';
import { SocketHub, type SocketModeOptions } from './slack-socket';
import { SlackStore, type WorkspaceInput } from './slack-store';
import { realClock, type FakeClock, type StoredChannel, type StoredMessage } from './slack-types';

export interface FakeSlackOptions {
  botToken?: string;
  appToken?: string;
  signingSecret?: string;
  verificationToken?: string;
  workspace?: WorkspaceInput;
  /** The bot token's scopes. Default: everything the gateway needs (not chat:write.public). */
  scopes?: string[];
  /** Clock for rate limits, message ts, response_url expiry and status lifetimes. Default: real time. */
  clock?: FakeClock;
  /** Per-method overrides of the default limits, or false to disable rate limiting. */
  rateLimits?: RateLimitConfig | false;
  blockLimits?: Partial<BlockLimits>;
  messageLimits?: Partial<MessageLimits>;
  /** The app's Events API Request URL (e.g. http://127.0.0.1:<port>/slack/events). */
  requestUrl?: string;
  /** Interactivity Request URL; default the events URL (Bolt serves both on /slack/events). */
  interactivityUrl?: string;
  /** How events reach the app. Default: 'http' once a request URL is set, else 'socket'. */
  delivery?: 'http' | 'socket';
  /** Slack waits this long for a 2xx before retrying an event. Default 3000 ms. */
  eventTimeoutMs?: number;
  /** Delay before retry 1, 2, 3 of an unacknowledged event. Default [0, 60_000, 300_000] (Slack: ~now, ~1 min, ~5 min). */
  eventRetryDelaysMs?: number[];
  socket?: SocketModeOptions;
  /** Deliver a `message` event for the bot's own posts too, as Slack does when subscribed (Bolt's ignoreSelf drops them). */
  echoOwnMessages?: boolean;
  /** Keep every call in `calls` (default). Long benchmarks can turn this off; counts remain. */
  recordCalls?: boolean;
}

export const DEFAULT_SCOPES = [
  'app_mentions:read', 'assistant:write', 'channels:history', 'channels:read', 'chat:write', 'files:read', 'files:write', 'groups:history',
  'groups:read', 'im:history', 'im:read', 'im:write', 'mpim:history', 'mpim:read', 'reactions:write', 'users:read',
];

export class SlackServerCore extends FakeServerBase<SlackCallRecord, SlackFaultSpec, RateLimitConfig> {
  readonly store: SlackStore;
  readonly clock: FakeClock;
  readonly botToken: string;
  readonly appToken: string;
  readonly signingSecret: string;
  readonly verificationToken: string;
  /** Every delivery to the app, in order. */
  readonly deliveries: SlackDelivery[] = [];
  /** #general (C0000GENRL): public, the bot and the default user are members. */
  readonly defaultChannel: string;
  /** alice (U0000ALICE), the person injectors act as when a test names nobody else. */
  readonly defaultUser: string;

  protected readonly options: FakeSlackOptions;
  protected readonly log: SlackCallLog;
  protected readonly faults = new SlackFaultInjector();
  protected readonly limiter: SlackRateLimiter;
  protected readonly api: SlackApi;
  protected readonly http: HttpDeliverer;
  protected readonly socket: SocketHub;
  protected readonly out: Outbound;
  protected readonly responses: ResponseUrls;
  protected readonly world: SlackWorld;
  protected scopes: Set<string>;
  protected account: AccountState = 'active';
  protected requestUrl: string | undefined;
  protected interactivityUrl: string | undefined;
  protected server: http.Server | undefined;
  protected root: string | undefined;
  protected stopping = false;

  constructor(options: FakeSlackOptions = {}) {
    super();
    this.options = options;
    this.clock = options.clock ?? realClock;
    this.botToken = options.botToken ?? 'xoxb-0000000001-0000000002-fakeBotToken';
    this.appToken = options.appToken ?? 'xapp-1-A0000FAKEA-0000000003-fakeAppToken';
    if (!this.appToken.startsWith('xapp-')) throw new Error('FakeSlackServer: appToken must start with xapp-');
    this.signingSecret = options.signingSecret ?? 'fake-signing-secret-0123456789abcdef';
    this.verificationToken = options.verificationToken ?? 'fakeVerificationToken0001';
    this.requestUrl = options.requestUrl;
    this.interactivityUrl = options.interactivityUrl;
    this.scopes = new Set(options.scopes ?? DEFAULT_SCOPES);
    this.log = new SlackCallLog(options.recordCalls !== false);
    this.store = new SlackStore(options.workspace ?? {}, this.clock);
    this.defaultChannel = this.store.channel({ id: 'C0000GENRL', name: 'general', kind: 'public', botMember: true }).id;
    this.defaultUser = this.store.user({ id: 'U0000ALICE', name: 'alice', real_name: 'Alice Example', display_name: 'alice' }).id;
    this.store.channel({ id: this.defaultChannel, members: [this.defaultUser] });
    this.limiter = new SlackRateLimiter(options.rateLimits, this.clock);
    this.world = this.makeWorld({ ...DEFAULT_BLOCK_LIMITS, ...options.blockLimits }, { ...DEFAULT_MESSAGE_LIMITS, ...options.messageLimits });
    const methods = new Map<string, MethodSpec>(Object.entries({ ...chatMethods(this.world), ...streamMethods(this.world), ...infoMethods(this.world), ...fileMethods(this.world) }));
    this.api = new SlackApi({
      store: this.store, clock: this.clock, botToken: this.botToken, appToken: this.appToken, methods, faults: this.faults, limiter: this.limiter,
      log: this.log, scopes: () => this.scopes, accountState: () => this.account,
      onCall: (rec) => {
        this.emit('call', rec);
        this.changed();
      },
    });
    const onAttempt = (h: { delivery: SlackDelivery }) => {
      this.emit('delivery', h.delivery);
      this.changed();
    };
    this.http = new HttpDeliverer({
      signingSecret: this.signingSecret, timeoutMs: options.eventTimeoutMs ?? 3000, retryDelaysMs: options.eventRetryDelaysMs ?? [0, 60_000, 300_000],
      now: () => this.clock.now(), onAttempt,
    });
    this.socket = new SocketHub(options.socket ?? {}, { appId: this.store.bot.appId, now: () => this.clock.now(), changed: () => this.changed(), onAttempt });
    this.out = new Outbound({
      store: this.store, verificationToken: this.verificationToken, mode: () => this.deliveryMode, eventsUrl: () => this.requestUrl,
      interactivityUrl: () => this.interactivityUrl, http: this.http, socket: this.socket,
      record: (d) => {
        this.deliveries.push(d);
        void d.done.then(() => this.changed());
        this.changed();
      },
    });
    this.responses = new ResponseUrls({
      store: this.store, clock: this.clock, blockLimits: this.world.blockLimits, changed: () => this.changed(),
      botMessageChanged: (m, k) => this.world.botMessageChanged(m, k),
    });
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  /** Listens on 127.0.0.1 (ephemeral port). `apiUrl` is what clients take as `slackApiUrl`. */
  async start(): Promise<{ apiUrl: string; root: string; botToken: string; appToken: string; signingSecret: string }> {
    if (this.server || this.stopping) throw new Error('FakeSlackServer can be started once');
    const server = http.createServer((req, res) => void this.route(req, res));
    server.on('upgrade', (req, socket, head) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname.startsWith('/link')) this.socket.handleUpgrade(req, socket, head, url);
      else socket.destroy();
    });
    const port = await listenOnLoopback(server);
    this.server = server;
    this.root = `http://127.0.0.1:${port}`;
    this.store.baseUrl = this.root;
    return { apiUrl: this.apiUrl, root: this.root, botToken: this.botToken, appToken: this.appToken, signingSecret: this.signingSecret };
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.http.stop();
    this.socket.stop();
    this.waiter.rejectAll(new Error('FakeSlackServer stopped'));
    const server = this.server;
    this.server = undefined;
    if (server) await closeNow(server);
  }

  /** e.g. "http://127.0.0.1:40123/api/" — pass as the WebClient's / Bolt's `slackApiUrl`. */
  get apiUrl(): string {
    return `${this.rootUrl}/api/`;
  }

  get rootUrl(): string {
    if (!this.root) throw new Error('FakeSlackServer not started');
    return this.root;
  }

  get team(): { id: string; name: string; domain: string } {
    return { ...this.store.team };
  }

  get bot(): { userId: string; botId: string; appId: string; name: string } {
    return { ...this.store.bot };
  }

  get deliveryMode(): 'http' | 'socket' {
    return this.options.delivery ?? (this.requestUrl ? 'http' : 'socket');
  }

  /** Where HTTP deliveries go (the app's port is often known only after it starts). */
  setRequestUrl(eventsUrl: string, interactivityUrl?: string): void {
    this.requestUrl = eventsUrl;
    this.interactivityUrl = interactivityUrl;
  }

  /** 429s answered, for one method or in total. */
  rateLimitedCount(method?: string): number {
    return this.log.rateLimited(method);
  }

  // ---- internals ----------------------------------------------------------------------------------

  protected requireChannel(ref: string): StoredChannel {
    const ch = this.store.resolveChannel(ref);
    if (!ch) throw new Error(`FakeSlackServer: no conversation "${ref}"`);
    return ch;
  }

  private makeWorld(blockLimits: BlockLimits, messageLimits: MessageLimits): SlackWorld {
    const self = this;
    const check = (ref: string | undefined, posting: boolean): StoredChannel => {
      const ch = ref ? self.store.resolveChannel(ref) : undefined;
      if (!ch) throw slackErrors.channelNotFound();
      if ((ch.kind === 'private' || ch.kind === 'mpim') && !ch.botMember) throw slackErrors.channelNotFound();
      if (posting && ch.kind === 'public' && !ch.botMember && !self.scopes.has('chat:write.public')) throw slackErrors.notInChannel();
      if (posting && ch.archived) throw slackErrors.isArchived();
      return ch;
    };
    return {
      store: this.store, clock: this.clock, blockLimits, messageLimits,
      get scopes() {
        return self.scopes;
      },
      postable: (ref) => check(ref, true),
      visible: (ref) => check(ref, false),
      socketUrl: () => `${this.rootUrl.replace(/^http/, 'ws')}/link/?ticket=${this.socket.issueTicket()}&app_id=${this.store.bot.appId}`,
      uploadUrl: (_fileId, token) => `${this.rootUrl}/upload/v1/${token}`,
      botMessageChanged: (msg: StoredMessage, kind) => {
        if (kind === 'posted' && this.options.echoOwnMessages) {
          const ch = this.store.channels.get(msg.channel)!;
          this.out.event(messageEvent(this.store, msg, ch));
        }
        this.changed();
      },
    };
  }

  private async route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const p = url.pathname;
    try {
      let m: RegExpExecArray | null;
      if ((m = /^\/api\/([A-Za-z0-9_.]+)$/.exec(p))) return await this.api.handle(req, res, m[1], url);
      if ((m = /^\/upload\/v1\/([^/]+)$/.exec(p))) return await handleUpload(this.world, req, res, m[1]);
      if ((m = /^\/files-pri\/(?:download\/)?[A-Z0-9]+-([A-Z0-9]+)\/[^/]+$/.exec(p))) return handleDownload(this.world, req, res, m[1], this.botToken);
      if ((m = /^\/actions\/[A-Z0-9]+\/(.+)$/.exec(p)) && req.method === 'POST') return await this.responses.handle(req, res, m[1]);
      sendRaw(res, 404, 'Not Found', 'text/plain');
    } catch (err) {
      sendRaw(res, 500, `fake Slack failed: ${(err as Error).message}`, 'text/plain');
    }
  }
}
