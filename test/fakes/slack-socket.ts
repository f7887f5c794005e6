/**
 * Socket Mode for the fake Slack: apps.connections.open hands out a one-use `ws://…/link/?ticket=`
 * URL; on connect the fake sends `hello` (num_connections, debug_info, connection_info.app_id), then
 * envelopes `{envelope_id, type, payload, accepts_response_payload, retry_attempt, retry_reason}` spread
 * round-robin over the app's open connections, as Slack spreads them (an app may hold several, e.g. one per
 * process). The app acks with `{envelope_id, payload?}`; Events API envelopes left unacked
 * are redelivered (retry_reason "timeout"). The fake answers pings and pings on its own; a "zombie"
 * connection stays open but answers and delivers nothing; `disconnect` messages and drops on demand.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { WebSocketServer, type WebSocket } from 'ws';
import type { DeliveryAttempt, DeliveryHandle } from './slack-delivery';

export type SocketEnvelopeType = 'events_api' | 'interactive' | 'slash_commands';
export type DisconnectReason = 'warning' | 'refresh_requested' | 'link_disabled';

export interface SocketModeOptions {
  /** Server pings every this many ms (0 = never). Default 5000. */
  pingIntervalMs?: number;
  /** Events API envelopes unacked after this long are redelivered. Default 3000. */
  ackTimeoutMs?: number;
  /** How many redeliveries an unacked Events API envelope gets. Default 3. */
  maxRetries?: number;
}

export interface SocketConnectionView {
  id: number;
  state: 'open' | 'closed';
  openedAt: number;
  closedAt?: number;
  closeCode?: number;
  /** Who ended it: the app (close frame / hang-up), the fake (disconnect, drop) or stop(). */
  closedBy?: 'client' | 'server';
  zombie: boolean;
  /** envelope_ids sent (or, for a zombie, swallowed) on this connection, in order. */
  envelopes: string[];
  acks: number;
  pingsFromClient: number;
  pongsFromClient: number;
  disconnectsSent: DisconnectReason[];
}

interface Conn {
  view: SocketConnectionView;
  ws: WebSocket;
  pinger?: NodeJS.Timeout;
}

interface Pending {
  handle: DeliveryHandle;
  type: SocketEnvelopeType;
  payload: Record<string, unknown>;
  acceptsResponse: boolean;
  retry: boolean;
  retryNum: number;
  timer?: NodeJS.Timeout;
}

export interface SocketHooks {
  appId: string;
  now(): number;
  changed(): void;
  onAttempt(handle: DeliveryHandle, attempt: DeliveryAttempt): void;
}

export class SocketHub {
  private readonly wss = new WebSocketServer({ noServer: true, autoPong: false, clientTracking: false });
  private readonly conns: Conn[] = [];
  private readonly tickets = new Set<string>();
  private readonly queue: Pending[] = [];
  private readonly byEnvelope = new Map<string, Pending>();
  private readonly opts: Required<SocketModeOptions>;
  private seq = 0;
  private turn = 0;
  private stopped = false;

  constructor(options: SocketModeOptions, private readonly hooks: SocketHooks) {
    this.opts = { pingIntervalMs: options.pingIntervalMs ?? 5000, ackTimeoutMs: options.ackTimeoutMs ?? 3000, maxRetries: options.maxRetries ?? 3 };
  }

  issueTicket(): string {
    const t = randomUUID();
    this.tickets.add(t);
    return t;
  }

  /** Takes over an HTTP upgrade for `/link/?ticket=…`; a missing or spent ticket gets 401. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): void {
    const ticket = url.searchParams.get('ticket') ?? '';
    if (this.stopped || !this.tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.open(ws));
  }

  connections(): SocketConnectionView[] {
    return this.conns.map((c) => structuredClone(c.view));
  }

  get openCount(): number {
    return this.conns.filter((c) => c.view.state === 'open').length;
  }

  deliver(handle: DeliveryHandle, type: SocketEnvelopeType, payload: Record<string, unknown>, acceptsResponse: boolean, retry: boolean, retryNum = 0): void {
    const p: Pending = { handle, type, payload, acceptsResponse, retry, retryNum };
    if (!this.send(p)) this.queue.push(p);
  }

  /** Sends `{type:"disconnect", reason}` to one connection (default: every open one); optionally closes it after. */
  disconnect(reason: DisconnectReason, connectionId?: number, closeAfterMs?: number): void {
    for (const c of this.targets(connectionId)) {
      c.view.disconnectsSent.push(reason);
      c.ws.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: `applink-fake-${c.view.id}` } }));
      if (closeAfterMs !== undefined) setTimeout(() => this.close(c, 1000), closeAfterMs).unref();
    }
    this.hooks.changed();
  }

  /** Cuts the TCP connection without a close frame. */
  drop(connectionId?: number): void {
    for (const c of this.targets(connectionId)) {
      c.view.closedBy = 'server';
      c.ws.terminate();
    }
  }

  /** From now on the connection stays open but answers no pings, sends no pings and delivers nothing. */
  setZombie(connectionId: number | undefined, on = true): void {
    for (const c of this.targets(connectionId)) c.view.zombie = on;
    this.hooks.changed();
  }

  stop(): void {
    this.stopped = true;
    for (const p of [...this.byEnvelope.values(), ...this.queue]) {
      clearTimeout(p.timer);
      p.handle.settle('failed');
    }
    this.byEnvelope.clear();
    this.queue.length = 0;
    for (const c of this.conns) if (c.view.state === 'open') this.close(c, 1001, true);
    this.wss.close();
  }

  private targets(connectionId: number | undefined): Conn[] {
    const open = this.conns.filter((c) => c.view.state === 'open');
    return connectionId === undefined ? open : open.filter((c) => c.view.id === connectionId);
  }

  private close(c: Conn, code: number, terminate = false): void {
    if (c.view.state !== 'open') return;
    c.view.closedBy ??= 'server';
    if (terminate) c.ws.terminate();
    else c.ws.close(code);
  }

  private open(ws: WebSocket): void {
    const view: SocketConnectionView = {
      id: ++this.seq, state: 'open', openedAt: this.hooks.now(), zombie: false, envelopes: [], acks: 0, pingsFromClient: 0, pongsFromClient: 0,
      disconnectsSent: [],
    };
    const conn: Conn = { view, ws };
    this.conns.push(conn);
    ws.on('ping', (data) => {
      view.pingsFromClient++;
      if (!view.zombie && view.state === 'open') ws.pong(data);
      this.hooks.changed();
    });
    ws.on('pong', () => view.pongsFromClient++);
    ws.on('message', (data, isBinary) => {
      if (!isBinary && !view.zombie) this.onMessage(conn, data.toString());
    });
    ws.on('error', () => undefined);
    ws.on('close', (code) => {
      view.state = 'closed';
      view.closedAt = this.hooks.now();
      view.closeCode = code;
      view.closedBy ??= 'client';
      clearInterval(conn.pinger);
      this.hooks.changed();
    });
    if (this.opts.pingIntervalMs > 0) {
      conn.pinger = setInterval(() => {
        if (!view.zombie && view.state === 'open') ws.ping(Buffer.from(`ping-${Date.now()}`));
      }, this.opts.pingIntervalMs);
    }
    ws.send(JSON.stringify({
      type: 'hello', num_connections: this.openCount,
      debug_info: { host: `applink-fake-${view.id}`, build_number: 1, approximate_connection_time: 18060 },
      connection_info: { app_id: this.hooks.appId },
    }));
    this.hooks.changed();
    for (const p of this.queue.splice(0)) if (!this.send(p)) this.queue.push(p);
  }

  private onMessage(conn: Conn, text: string): void {
    let msg: { envelope_id?: unknown; payload?: unknown };
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof msg.envelope_id !== 'string') return;
    conn.view.acks++;
    const p = this.byEnvelope.get(msg.envelope_id);
    if (!p) return;
    clearTimeout(p.timer);
    for (const [id, other] of this.byEnvelope) if (other === p) this.byEnvelope.delete(id);
    const attempt = p.handle.delivery.attempts.find((a) => a.envelopeId === msg.envelope_id);
    if (attempt) {
      attempt.acked = true;
      attempt.durationMs = performance.now() - attempt.perfAt;
    }
    if (msg.payload !== undefined && !(typeof msg.payload === 'object' && msg.payload !== null && Object.keys(msg.payload).length === 0)) {
      p.handle.delivery.ackPayload = msg.payload;
    }
    p.handle.settle('acked');
    this.hooks.changed();
  }

  /** Sends to the next open connection in turn; false when there is none (the envelope waits for one). */
  private send(p: Pending): boolean {
    if (this.stopped) {
      p.handle.settle('failed');
      return true;
    }
    const open = this.conns.filter((c) => c.view.state === 'open');
    if (open.length === 0) return false;
    const conn = open[this.turn++ % open.length];
    const envelopeId = randomUUID();
    const attempt: DeliveryAttempt = { retryNum: p.retryNum, at: this.hooks.now(), perfAt: performance.now(), connectionId: conn.view.id, envelopeId, acked: false };
    if (p.retryNum > 0) attempt.retryReason = 'timeout';
    p.handle.delivery.attempts.push(attempt);
    conn.view.envelopes.push(envelopeId);
    this.byEnvelope.set(envelopeId, p);
    if (!conn.view.zombie) {
      conn.ws.send(JSON.stringify({
        envelope_id: envelopeId, payload: p.payload, type: p.type, accepts_response_payload: p.acceptsResponse, retry_attempt: p.retryNum,
        retry_reason: p.retryNum > 0 ? 'timeout' : '',
      }));
    }
    this.hooks.onAttempt(p.handle, attempt);
    p.timer = setTimeout(() => this.onTimeout(p), this.opts.ackTimeoutMs);
    return true;
  }

  private onTimeout(p: Pending): void {
    if (p.handle.delivery.state !== 'pending') return;
    if (!p.retry || p.retryNum >= this.opts.maxRetries) {
      for (const [id, other] of this.byEnvelope) if (other === p) this.byEnvelope.delete(id);
      p.handle.settle('failed');
      this.hooks.changed();
      return;
    }
    p.retryNum++;
    if (!this.send(p)) this.queue.push(p);
  }
}
