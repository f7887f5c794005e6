/**
 * One gateway websocket (`GatewayConnection`: framing with optional zlib-stream transport compression
 * or identify payload compression, heartbeat ACK switch, client send budget) and one gateway session
 * (`GatewaySession`: intents, shard, sequence numbers and the buffer of dispatches a RESUME replays).
 * A session outlives its connection until it is resumed, invalidated or its resume window passes.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import zlib from 'node:zlib';
import type { WebSocket } from 'ws';
import type { Json } from './discord-types';

export interface GatewayLogEntry {
  dir: 'in' | 'out';
  connectionId: number;
  op: number;
  t?: string;
  s?: number | null;
  /** Clock ms and performance.now() when the frame was read or handed to the socket. */
  at: number;
  perfAt: number;
  /** Frames the fake meant to send but a fault or closed socket swallowed. */
  dropped?: boolean;
}

export interface IdentifyRecord {
  connectionId: number;
  sessionId?: string;
  token: string;
  intents: number;
  properties: Json;
  compress: boolean;
  largeThreshold?: number;
  shard: [number, number];
  presence?: unknown;
  at: number;
  /** How the identify ended: a session, or the close code it got. */
  outcome: 'ready' | number;
}

export class GatewayConnection {
  session: GatewaySession | undefined;
  identified = false;
  /** False = heartbeats go unanswered (a zombie connection). */
  acking = true;
  heartbeats = 0;
  lastHeartbeatAt: number | undefined;
  payloadCompress = false;
  closed = false;
  closeCode: number | undefined;
  private deflate: zlib.Deflate | undefined;
  private chain: Promise<void> = Promise.resolve();
  private received: number[] = [];

  constructor(
    readonly id: number,
    readonly ws: WebSocket,
    readonly path: string,
    readonly query: Record<string, string>,
    private readonly log: (e: GatewayLogEntry) => void,
    private readonly now: () => number,
  ) {
    if (query.compress === 'zlib-stream') this.deflate = zlib.createDeflate({ chunkSize: 64 * 1024 });
  }

  get transportCompression(): 'zlib-stream' | null {
    return this.deflate ? 'zlib-stream' : null;
  }

  get open(): boolean {
    return !this.closed && this.ws.readyState === this.ws.OPEN;
  }

  /** Counts a client frame; false once the client exceeds `limit` frames in `windowMs`. */
  countReceived(limit: number, windowMs: number): boolean {
    const t = this.now();
    this.received = this.received.filter((x) => t - x < windowMs);
    this.received.push(t);
    return this.received.length <= limit;
  }

  send(payload: { op: number; d?: unknown; s?: number | null; t?: string | null }): void {
    const entry: GatewayLogEntry = { dir: 'out', connectionId: this.id, op: payload.op, at: this.now(), perfAt: performance.now() };
    if (payload.t) entry.t = payload.t;
    if (payload.s !== undefined) entry.s = payload.s;
    if (!this.open) {
      entry.dropped = true;
      this.log(entry);
      return;
    }
    const text = JSON.stringify({ t: null, s: null, ...payload });
    this.log(entry);
    if (this.deflate) {
      const deflate = this.deflate;
      this.chain = this.chain.then(
        () =>
          new Promise<void>((resolve) => {
            const chunks: Buffer[] = [];
            const onData = (c: Buffer): void => {
              chunks.push(c);
            };
            deflate.on('data', onData);
            deflate.write(text);
            deflate.flush(zlib.constants.Z_SYNC_FLUSH, () => {
              deflate.off('data', onData);
              if (this.open) this.ws.send(Buffer.concat(chunks));
              resolve();
            });
          }),
      );
    } else if (this.payloadCompress && payload.op === 0) {
      this.ws.send(zlib.deflateSync(text));
    } else {
      this.ws.send(text);
    }
  }

  /** Closes after every queued frame has gone out. */
  close(code: number, reason = ''): void {
    if (this.closed) return;
    void this.chain.then(() => {
      if (this.ws.readyState === this.ws.OPEN || this.ws.readyState === this.ws.CONNECTING) this.ws.close(code, reason);
    });
  }

  /** Drops the TCP connection without a close frame (the client sees 1006). */
  terminate(): void {
    this.ws.terminate();
  }

  dispose(): void {
    this.deflate?.close();
    this.deflate = undefined;
  }
}

export interface BufferedDispatch {
  s: number;
  t: string;
  d: unknown;
}

export class GatewaySession {
  readonly id = randomBytes(16).toString('hex');
  seq = 0;
  conn: GatewayConnection | undefined;
  invalidated = false;
  disconnectedAt: number | undefined;
  resumes = 0;
  presence: unknown;
  private buffer: BufferedDispatch[] = [];

  constructor(
    readonly identify: IdentifyRecord,
    private readonly replayLimit: number,
  ) {}

  get intents(): number {
    return this.identify.intents;
  }

  get shard(): [number, number] {
    return this.identify.shard;
  }

  /** Assigns the next sequence number, keeps the event for replay and sends it if connected. */
  push(t: string, d: unknown): number {
    const s = ++this.seq;
    this.buffer.push({ s, t, d });
    if (this.buffer.length > this.replayLimit) this.buffer.splice(0, this.buffer.length - this.replayLimit);
    if (this.conn?.identified) this.conn.send({ op: 0, t, s, d });
    return s;
  }

  /** Events after `seq`, or undefined when some of them are no longer kept. */
  since(seq: number): BufferedDispatch[] | undefined {
    if (seq > this.seq) return undefined;
    const first = this.buffer[0]?.s ?? this.seq + 1;
    if (seq + 1 < first && seq < this.seq) return undefined;
    return this.buffer.filter((e) => e.s > seq);
  }

  /** Whether this session should get an event of `guildId` (shard = (guild_id >> 22) % shard count). */
  routes(guildId: string | undefined): boolean {
    const [id, count] = this.shard;
    if (guildId === undefined) return id === 0;
    return Number((BigInt(guildId) >> 22n) % BigInt(count)) === id;
  }
}
