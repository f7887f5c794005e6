/**
 * The machinery under FakeDiscordServer: one HTTP server on 127.0.0.1 (ephemeral port) serving the
 * REST API under `/api/v10` (and v9), attachments under `/cdn/attachments/...`, and the gateway
 * websocket on upgrade of `/gateway`; the world, services and options wired together; READY and
 * GUILD_CREATE payloads for the gateway; the 'change' signal (waits and call log: FakeServerBase).
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { DiscordCallLog, type CallRecord } from './discord-call-log';
import { CommandRegistry, type CommandBudget } from './discord-commands';
import { DiscordFaults, type FaultSpec } from './discord-faults';
import { FakeGateway, type GatewayHost, type GatewayOptions } from './discord-gateway';
import type { GatewaySession } from './discord-gateway-session';
import { sendJson } from './discord-http';
import { InteractionBook } from './discord-interactions';
import { MessageService, type DispatchSpec, type OldEditBudget } from './discord-messages';
import { DiscordRateLimiter, type DiscordRateLimitOptions } from './discord-rate-limit';
import { RestRouter } from './discord-router';
import { appRoutes } from './discord-routes-app';
import { channelRoutes } from './discord-routes-channels';
import { interactionRoutes } from './discord-routes-interactions';
import { DiscordStore, type GuildSeed } from './discord-store';
import { ApplicationFlag, Intent, realClock, type DcUser, type FakeClock, type Json } from './discord-types';
import { guildCreateJson, memberJson, userJson } from './discord-wire';
import type { RestWorld } from './discord-world';
import { FakeServerBase } from './fake-server-base';
import { sendRaw } from './http-body';
import { closeNow, listenOnLoopback } from './loopback-http';

export interface FakeDiscordOptions {
  /** Bot token. Default: a Discord-shaped token for the bot's id. */
  token?: string;
  botUsername?: string;
  /** Application id; the bot user has the same id, as for apps created today. Default generated. */
  applicationId?: string;
  applicationName?: string;
  /** Privileged intents switched on for the app (Developer Portal). Default none. */
  privilegedIntents?: { messageContent?: boolean; guildMembers?: boolean; guildPresences?: boolean };
  clock?: FakeClock;
  rateLimits?: DiscordRateLimitOptions | false;
  gateway?: GatewayOptions;
  /** Guilds the bot is in; default one "Fake Guild" with #general, #random and users alice, bob. */
  guilds?: GuildSeed[] | false;
  /** Time to acknowledge an interaction. Default 3,000 ms. */
  interactionAckWindowMs?: number;
  /** Lifetime of an interaction token's webhook. Default 15 minutes. */
  interactionTokenLifetimeMs?: number;
  /** Daily creates of new application commands per scope. Default 200 per 24 h. */
  commandCreateBudget?: CommandBudget | false;
  /** Edits of messages over an hour old (30046). Default 5 per hour per channel. */
  oldMessageEdits?: OldEditBudget | false;
  /** Largest upload per file, also sent as interactions' attachment_size_limit. Default 10 MiB. */
  attachmentSizeLimit?: number;
  /** Keep every REST call and gateway frame (default). Long benchmarks can turn this off. */
  recordCalls?: boolean;
}

export interface DispatchRecord {
  t: string;
  /** Sessions that got (or buffered) the event. */
  delivered: number;
  perfAt: number;
  at: number;
}

export class DiscordServerCore extends FakeServerBase<CallRecord, FaultSpec, DiscordRateLimitOptions> implements RestWorld {
  readonly store: DiscordStore;
  readonly clock: FakeClock;
  readonly token: string;
  readonly applicationId: string;
  readonly applicationName: string;
  readonly applicationFlags: number;
  readonly allowedPrivilegedIntents: number;
  readonly attachmentSizeLimit: number;
  readonly oldEditBudget: OldEditBudget | false;
  readonly messages: MessageService;
  readonly interactions: InteractionBook;
  readonly commands: CommandRegistry;
  readonly gateway: FakeGateway;
  readonly dispatches: DispatchRecord[] = [];
  /** The most recent dispatch (kept even when recording is off). */
  lastDispatch: DispatchRecord | undefined;
  protected readonly log: DiscordCallLog;
  protected readonly faults = new DiscordFaults();
  protected readonly limiter: DiscordRateLimiter;
  protected readonly router: RestRouter;
  protected readonly keep: boolean;
  private server: http.Server | undefined;
  private base: string | undefined;
  private stopping = false;

  constructor(options: FakeDiscordOptions = {}) {
    super();
    this.clock = options.clock ?? realClock;
    this.keep = options.recordCalls !== false;
    this.store = new DiscordStore(this.clock, { id: options.applicationId, username: options.botUsername ?? 'penguin-bot' });
    this.applicationId = this.store.bot.id;
    this.applicationName = options.applicationName ?? 'Penguin Bot';
    this.token = options.token ?? `${Buffer.from(this.applicationId).toString('base64').replace(/=+$/, '')}.FAKE.discord-bot-token`;
    const p = options.privilegedIntents ?? {};
    this.allowedPrivilegedIntents =
      (p.messageContent ? Intent.MessageContent : 0) | (p.guildMembers ? Intent.GuildMembers : 0) | (p.guildPresences ? Intent.GuildPresences : 0);
    this.applicationFlags =
      ApplicationFlag.ApplicationCommandBadge |
      (p.messageContent ? ApplicationFlag.GatewayMessageContentLimited : 0) |
      (p.guildMembers ? ApplicationFlag.GatewayGuildMembersLimited : 0) |
      (p.guildPresences ? ApplicationFlag.GatewayPresenceLimited : 0);
    this.attachmentSizeLimit = options.attachmentSizeLimit ?? 10 * 1024 * 1024;
    this.oldEditBudget = options.oldMessageEdits ?? { ageMs: 3_600_000, limit: 5, windowMs: 3_600_000 };
    this.interactions = new InteractionBook(options.interactionAckWindowMs ?? 3000, options.interactionTokenLifetimeMs ?? 15 * 60_000);
    this.commands = new CommandRegistry(this.applicationId, this.store.ids, this.clock, options.commandCreateBudget ?? { limit: 200, windowMs: 86_400_000 });
    this.messages = new MessageService(this);
    this.log = new DiscordCallLog(this.keep);
    this.limiter = new DiscordRateLimiter(options.rateLimits, this.clock);
    this.gateway = new FakeGateway(this.gatewayHost(), options.gateway ?? {}, this.keep);
    this.router = new RestRouter([...appRoutes(this), ...channelRoutes(this), ...interactionRoutes(this)], {
      token: this.token, clock: this.clock, faults: this.faults, limiter: this.limiter, log: this.log, maxRequestBytes: 26 * 1024 * 1024,
      onCall: (rec: CallRecord) => {
        this.emit('call', rec);
        this.changed();
      },
    });
    const seeds = options.guilds === false ? [] : (options.guilds ?? [{ name: 'Fake Guild', channels: ['general', 'random'], members: ['alice', 'bob'] }]);
    for (const seed of seeds) this.store.addGuild(seed);
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  async start(): Promise<{ apiRoot: string; cdnRoot: string; gatewayUrl: string; token: string; applicationId: string }> {
    if (this.server || this.stopping) throw new Error('FakeDiscordServer can be started once');
    const server = http.createServer((req, res) => void this.handle(req, res));
    server.on('upgrade', (req, socket, head) => this.gateway.handleUpgrade(req, socket, head));
    const port = await listenOnLoopback(server);
    this.server = server;
    this.base = `127.0.0.1:${port}`;
    return { apiRoot: this.apiRoot, cdnRoot: this.cdnRoot, gatewayUrl: this.gatewayUrl, token: this.token, applicationId: this.applicationId };
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.waiter.rejectAll(new Error('FakeDiscordServer stopped'));
    await this.gateway.stop();
    const server = this.server;
    this.server = undefined;
    if (server) await closeNow(server);
  }

  private get host(): string {
    if (!this.base) throw new Error('FakeDiscordServer not started');
    return this.base;
  }

  /** e.g. "http://127.0.0.1:40123/api" — discord.js's `rest.api` (it appends /v10). */
  get apiRoot(): string {
    return `http://${this.host}/api`;
  }

  /** discord.js's `rest.cdn`; attachment URLs point here. */
  get cdnRoot(): string {
    return `http://${this.host}/cdn`;
  }

  get gatewayUrl(): string {
    return `ws://${this.host}/gateway`;
  }

  get botUser(): DcUser {
    return { ...this.store.bot };
  }

  sessionStartLimit(): Json {
    const used = this.gateway.identifies.filter((i) => i.outcome === 'ready').length;
    return { total: 1000, remaining: Math.max(0, 1000 - used), reset_after: 86_400_000, max_concurrency: 1 };
  }

  // ---- world hooks ------------------------------------------------------------------------------

  get appHasMessageContent(): boolean {
    return (this.allowedPrivilegedIntents & Intent.MessageContent) !== 0;
  }

  dispatch(spec: DispatchSpec): void {
    const delivered = this.gateway.dispatch(spec);
    const rec: DispatchRecord = { t: spec.t, delivered, perfAt: performance.now(), at: this.clock.now() };
    this.lastDispatch = rec;
    if (this.keep) this.dispatches.push(rec);
    this.emit('dispatch', rec);
  }

  /** Public here: the REST world and gateway signal their changes through it. */
  override changed(): void {
    super.changed();
  }

  private gatewayHost(): GatewayHost {
    return {
      token: this.token,
      clock: this.clock,
      allowedPrivilegedIntents: this.allowedPrivilegedIntents,
      ready: (s: GatewaySession) => ({
        v: 10, user_settings: {}, user: { ...userJson(this.store.bot), verified: true, mfa_enabled: false, email: null, flags: 0 },
        guilds: this.guildsFor(s).map((g) => ({ id: g.id, unavailable: true })), guild_join_requests: [], relationships: [],
        private_channels: [], presences: [], session_id: s.id, session_type: 'normal', resume_gateway_url: `ws://${this.host}/gateway/resume`,
        shard: s.shard, application: { id: this.applicationId, flags: this.applicationFlags }, auth: {}, geo_ordered_rtc_regions: [],
        _trace: ['["fake-discord-gateway",{"micros":0}]'],
      }),
      guildCreates: (s: GatewaySession) => this.guildsFor(s).map((g) => guildCreateJson(this.store, g, s.intents)),
      guildMembersChunk: (s: GatewaySession, req: Json) => {
        const guild = this.store.guilds.get(String(req.guild_id ?? ''));
        if (!guild) return undefined;
        const ids = Array.isArray(req.user_ids) ? req.user_ids.map(String) : undefined;
        const query = typeof req.query === 'string' ? req.query.toLowerCase() : '';
        const all = ids || s.intents & Intent.GuildMembers ? [...guild.members.values()] : [];
        const found = all.filter((m) => (ids ? ids.includes(m.userId) : this.store.resolveUser(m.userId).username.toLowerCase().startsWith(query)));
        const chunk: Json = { guild_id: guild.id, members: found.map((m) => memberJson(this.store, m)), chunk_index: 0, chunk_count: 1 };
        if (req.nonce !== undefined) chunk.nonce = req.nonce;
        if (ids) chunk.not_found = ids.filter((id) => !guild.members.has(id));
        return chunk;
      },
      changed: () => this.changed(),
    };
  }

  private guildsFor(s: GatewaySession) {
    return [...this.store.guilds.values()].filter((g) => g.members.has(this.store.bot.id) && s.routes(g.id));
  }

  // ---- HTTP -----------------------------------------------------------------------------------------

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const api = /^\/api\/v(?:9|10)(\/.*)$/.exec(url.pathname);
    if (api) return this.router.handle(req, res, api[1], url);
    const file = /^\/cdn\/attachments\/(\d+)\/(\d+)\/([^/]+)$/.exec(url.pathname);
    if (file && (req.method === 'GET' || req.method === 'HEAD')) {
      const att = this.store.channels.get(file[1])?.messages;
      for (const m of att?.values() ?? []) {
        const a = m.attachments.find((x) => x.id === file[2] && x.filename === decodeURIComponent(file[3]));
        if (a) return sendRaw(res, 200, a.data, a.content_type ?? 'application/octet-stream');
      }
      return sendRaw(res, 404, 'Not Found', 'text/plain');
    }
    sendJson(res, 404, { message: '404: Not Found', code: 0 });
  }
}
