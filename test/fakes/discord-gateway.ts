/**
 * The fake Discord gateway on `ws://127.0.0.1:<port>/gateway?v=10&encoding=json[&compress=zlib-stream]`:
 * HELLO, IDENTIFY (token 4004, intents 4013, privileged intents the app lacks 4014, shard 4010,
 * twice 4005), heartbeats and ACKs, READY + GUILD_CREATE, dispatches with rising `s` routed by shard and
 * intent, RESUME with replay and RESUMED (op 9 when the session is gone), and the test's levers:
 * RECONNECT (op 7), INVALID_SESSION, close with a code, drop the TCP link, stop ACKing heartbeats.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { DispatchSpec } from './discord-messages';
import { GatewayConnection, GatewaySession, type GatewayLogEntry, type IdentifyRecord } from './discord-gateway-session';
import { ALL_INTENTS, Intent, Opcode, PRIVILEGED_INTENTS, type FakeClock, type Json } from './discord-types';

export interface GatewayOptions {
  /** HELLO's heartbeat_interval. Default 41,250 ms (Discord's); tests use ~100–500 ms. */
  heartbeatIntervalMs?: number;
  /** How long a disconnected session can still be resumed. Default 2 minutes. */
  resumeWindowMs?: number;
  /** Dispatches kept per session for replay. Default 1,000. */
  replayLimit?: number;
  /** Refuse a second IDENTIFY (op 9) within this window, as max_concurrency 1 does. Default off. */
  identifyWindowMs?: number | false;
}

export interface GatewayHost {
  readonly token: string;
  readonly clock: FakeClock;
  /** Privileged intent bits the app has switched on. */
  readonly allowedPrivilegedIntents: number;
  ready(session: GatewaySession): Json;
  guildCreates(session: GatewaySession): Json[];
  guildMembersChunk(session: GatewaySession, request: Json): Json | undefined;
  changed(): void;
}

const UNRESUMABLE_CLOSES = new Set([4004, 4007, 4009, 4010, 4011, 4012, 4013, 4014]);

export class FakeGateway {
  readonly wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  readonly connections: GatewayConnection[] = [];
  readonly sessions = new Map<string, GatewaySession>();
  readonly identifies: IdentifyRecord[] = [];
  readonly log: GatewayLogEntry[] = [];
  readonly heartbeatIntervalMs: number;
  private readonly resumeWindowMs: number;
  private readonly replayLimit: number;
  private readonly identifyWindowMs: number | false;
  private nextConnId = 1;
  private lastIdentifyAt = -Infinity;

  constructor(private readonly host: GatewayHost, options: GatewayOptions, private readonly keepLog: boolean) {
    this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? 41_250;
    this.resumeWindowMs = options.resumeWindowMs ?? 120_000;
    this.replayLimit = options.replayLimit ?? 1000;
    this.identifyWindowMs = options.identifyWindowMs ?? false;
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/gateway' && url.pathname !== '/gateway/resume') {
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, url));
  }

  private now(): number {
    return this.host.clock.now();
  }

  private record(e: GatewayLogEntry): void {
    if (this.keepLog) this.log.push(e);
  }

  private accept(ws: WebSocket, url: URL): void {
    const query = Object.fromEntries(url.searchParams);
    const conn = new GatewayConnection(this.nextConnId++, ws, url.pathname, query, (e) => this.record(e), () => this.now());
    this.connections.push(conn);
    ws.on('message', (data: RawData, isBinary: boolean) => this.onFrame(conn, data, isBinary));
    ws.on('close', (code: number) => this.onClose(conn, code));
    ws.on('error', () => undefined);
    this.host.changed();
    if (query.v !== '10' && query.v !== '9') return conn.close(4012, 'Invalid API version');
    if ((query.encoding ?? 'json') !== 'json') return conn.close(4002, 'This fake gateway speaks encoding=json only');
    if (query.compress !== undefined && query.compress !== 'zlib-stream') return conn.close(4000, `Unsupported compression ${query.compress}`);
    conn.send({ op: Opcode.Hello, d: { heartbeat_interval: this.heartbeatIntervalMs, _trace: ['["fake-discord-gateway",{"micros":0}]'] } });
  }

  private onFrame(conn: GatewayConnection, data: RawData, isBinary: boolean): void {
    if (conn.closed) return;
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    if (isBinary || buf.length > 4096) return conn.close(4002, 'Error while decoding payload.');
    let payload: { op?: unknown; d?: unknown };
    try {
      payload = JSON.parse(buf.toString('utf8'));
    } catch {
      return conn.close(4002, 'Error while decoding payload.');
    }
    const op = typeof payload.op === 'number' ? payload.op : -1;
    this.record({ dir: 'in', connectionId: conn.id, op, at: this.now(), perfAt: performance.now() });
    if (!conn.countReceived(120, 60_000)) return conn.close(4008, 'Rate limited.');
    const d = (payload.d ?? null) as Json | null;
    switch (op) {
      case Opcode.Heartbeat:
        conn.heartbeats++;
        conn.lastHeartbeatAt = this.now();
        if (conn.acking) conn.send({ op: Opcode.HeartbeatAck });
        break;
      case Opcode.Identify:
        this.identify(conn, d ?? {});
        break;
      case Opcode.Resume:
        this.resume(conn, d ?? {});
        break;
      case Opcode.PresenceUpdate:
      case Opcode.VoiceStateUpdate:
      case Opcode.RequestGuildMembers:
      case Opcode.RequestSoundboardSounds:
        if (!conn.identified) return conn.close(4003, 'Not authenticated.');
        if (op === Opcode.PresenceUpdate && conn.session) conn.session.presence = d;
        if (op === Opcode.RequestGuildMembers && conn.session) {
          const chunk = this.host.guildMembersChunk(conn.session, d ?? {});
          if (chunk) conn.session.push('GUILD_MEMBERS_CHUNK', chunk);
        }
        break;
      default:
        return conn.close(4001, 'Unknown opcode.');
    }
    this.host.changed();
  }

  private identify(conn: GatewayConnection, d: Json): void {
    const rec: IdentifyRecord = {
      connectionId: conn.id, token: String(d.token ?? ''), intents: Number(d.intents), properties: (d.properties as Json) ?? {},
      compress: d.compress === true, shard: Array.isArray(d.shard) ? [Number(d.shard[0]), Number(d.shard[1])] : [0, 1],
      at: this.now(), outcome: 'ready',
    };
    if (d.large_threshold !== undefined) rec.largeThreshold = Number(d.large_threshold);
    if (d.presence !== undefined) rec.presence = d.presence;
    this.identifies.push(rec);
    const fail = (code: number, reason: string): void => {
      rec.outcome = code;
      conn.close(code, reason);
    };
    if (conn.identified) return fail(4005, 'Already authenticated.');
    if (rec.token.replace(/^Bot\s+/i, '') !== this.host.token) return fail(4004, 'Authentication failed.');
    if (!Number.isInteger(rec.intents) || rec.intents < 0 || (rec.intents & ~ALL_INTENTS) !== 0) return fail(4013, 'Invalid intent(s).');
    if (rec.intents & PRIVILEGED_INTENTS & ~this.host.allowedPrivilegedIntents) return fail(4014, 'Disallowed intent(s).');
    const [shardId, shardCount] = rec.shard;
    if (!(shardCount >= 1 && shardId >= 0 && shardId < shardCount)) return fail(4010, 'Invalid shard.');
    if (this.identifyWindowMs !== false && this.now() - this.lastIdentifyAt < this.identifyWindowMs) {
      rec.outcome = 9;
      conn.send({ op: Opcode.InvalidSession, d: false });
      return;
    }
    this.lastIdentifyAt = this.now();
    conn.payloadCompress = rec.compress && !conn.transportCompression;
    const session = new GatewaySession(rec, this.replayLimit);
    rec.sessionId = session.id;
    this.sessions.set(session.id, session);
    conn.session = session;
    conn.identified = true;
    session.conn = conn;
    session.push('READY', this.host.ready(session));
    if (session.intents & Intent.Guilds) for (const g of this.host.guildCreates(session)) session.push('GUILD_CREATE', g);
  }

  private resume(conn: GatewayConnection, d: Json): void {
    if (String(d.token ?? '').replace(/^Bot\s+/i, '') !== this.host.token) return conn.close(4004, 'Authentication failed.');
    const session = this.sessions.get(String(d.session_id ?? ''));
    const seq = Number(d.seq ?? 0);
    if (!session || !this.resumable(session) || (conn.session && conn.session !== session)) {
      conn.send({ op: Opcode.InvalidSession, d: false });
      return;
    }
    const missed = session.since(seq);
    if (!missed) {
      session.invalidated = true;
      conn.send({ op: Opcode.InvalidSession, d: false });
      return;
    }
    const old = session.conn;
    if (old && old !== conn) {
      old.session = undefined;
      old.identified = false;
      old.close(4000, 'Session resumed elsewhere');
    }
    session.conn = conn;
    session.disconnectedAt = undefined;
    session.resumes++;
    conn.session = session;
    conn.identified = true;
    for (const e of missed) conn.send({ op: 0, t: e.t, s: e.s, d: e.d });
    conn.send({ op: 0, t: 'RESUMED', s: ++session.seq, d: { _trace: ['["fake-discord-gateway",{"micros":0}]'] } });
  }

  private resumable(s: GatewaySession): boolean {
    if (s.invalidated) return false;
    if (s.disconnectedAt !== undefined && this.now() - s.disconnectedAt > this.resumeWindowMs) s.invalidated = true;
    return !s.invalidated;
  }

  private onClose(conn: GatewayConnection, code: number): void {
    conn.closed = true;
    conn.closeCode = code;
    conn.dispose();
    const s = conn.session;
    if (s && s.conn === conn) {
      s.conn = undefined;
      s.disconnectedAt = this.now();
      if (code === 1000 || code === 1001 || UNRESUMABLE_CLOSES.has(code)) s.invalidated = true;
    }
    this.host.changed();
  }

  /** Sends one event to every live session that routes it and holds its intent. */
  dispatch(spec: DispatchSpec): number {
    let delivered = 0;
    for (const s of this.sessions.values()) {
      if (!this.resumable(s) || !s.routes(spec.guildId)) continue;
      if (spec.intent !== undefined && (s.intents & spec.intent) === 0) continue;
      const d = spec.build(s);
      if (d === undefined) continue;
      s.push(spec.t, d);
      delivered++;
    }
    return delivered;
  }

  live(): GatewayConnection[] {
    return this.connections.filter((c) => c.open && c.identified);
  }

  /** Asks every identified connection to reconnect and resume (op 7). */
  requestReconnect(): void {
    for (const c of this.live()) c.send({ op: Opcode.Reconnect, d: null });
  }

  /** Sends op 9; with `resumable` false the sessions are gone and the client must IDENTIFY again. */
  invalidateSessions(resumable: boolean): void {
    for (const c of this.live()) {
      if (!resumable && c.session) c.session.invalidated = true;
      c.send({ op: Opcode.InvalidSession, d: resumable });
    }
  }

  /** Asks every identified connection for an immediate heartbeat (op 1). */
  requestHeartbeat(): void {
    for (const c of this.live()) c.send({ op: Opcode.Heartbeat, d: null });
  }

  closeAll(code: number, reason = ''): void {
    for (const c of this.connections) if (c.open) c.close(code, reason);
  }

  terminateAll(): void {
    for (const c of this.connections) if (c.open) c.terminate();
  }

  /** Stops (or resumes) answering heartbeats on the currently identified connections. */
  setAcking(on: boolean): void {
    for (const c of this.live()) c.acking = on;
  }

  async stop(): Promise<void> {
    for (const c of this.connections) if (!c.closed) c.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
