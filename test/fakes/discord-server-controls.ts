/**
 * The test's levers and gauges on FakeDiscordServer that are not about the chat world: 429 counts per
 * route (the call log, faults and rate-limit switches come from FakeServerBase), and the gateway
 * (identifies, READY / RESUME waits, heartbeat count, op 7, op 9, close codes, dropped TCP, heartbeat
 * ACKs stopped to make a zombie connection).
 */
import type { IdentifyRecord } from './discord-gateway-session';
import { DiscordServerCore } from './discord-server-core';

export class DiscordServerControls extends DiscordServerCore {
  // ---- rate limits ------------------------------------------------------------------------------------

  /** 429s answered, for one route or in total. */
  rateLimitedCount(route?: string): number {
    return this.log.rateLimited(route);
  }

  // ---- gateway -----------------------------------------------------------------------------------------

  get identifies(): readonly IdentifyRecord[] {
    return this.gateway.identifies;
  }

  /** Resolves once a session got READY (and `count` of them have, for reconnect tests). */
  waitForReady(count = 1, timeoutMs = 5000): Promise<string> {
    return this.waitFor(() => this.identifies.filter((i) => i.outcome === 'ready')[count - 1]?.sessionId, timeoutMs, `READY #${count}`);
  }

  /** Resolves after `count` successful RESUMEs in total. */
  waitForResume(count = 1, timeoutMs = 5000): Promise<true> {
    return this.waitFor(() => [...this.gateway.sessions.values()].reduce((n, s) => n + s.resumes, 0) >= count || undefined, timeoutMs, `RESUME #${count}`);
  }

  /** Heartbeats received over all connections. */
  heartbeatCount(): number {
    return this.gateway.connections.reduce((n, c) => n + c.heartbeats, 0);
  }

  requestReconnect(): void {
    this.gateway.requestReconnect();
  }

  invalidateSession(resumable = false): void {
    this.gateway.invalidateSessions(resumable);
  }

  requestHeartbeat(): void {
    this.gateway.requestHeartbeat();
  }

  /** Closes every gateway connection with a close code (4000 resumable, 4004/4014 fatal…). */
  closeGateway(code = 4000, reason = ''): void {
    this.gateway.closeAll(code, reason);
  }

  /** Drops every gateway TCP connection without a close frame. */
  dropGateway(): void {
    this.gateway.terminateAll();
  }

  /** The current connections stop answering heartbeats (the client should see a zombie and resume). */
  stopHeartbeatAcks(): void {
    this.gateway.setAcking(false);
  }
}
