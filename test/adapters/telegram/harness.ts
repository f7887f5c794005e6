/**
 * Set-up for the Telegram adapter's integration tests: a FakeTelegramServer, adapters pointed at it, a
 * recording inbound handler with event-driven waits, and `ScaledClock` — real timers running `factor`×
 * faster, shared by the fake's flood control and the adapter side's governor and writer, so the real
 * Telegram budgets (1/s per chat, retry_after in seconds) play out in milliseconds. `cleanup()` stops all.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import express, { type Express } from 'express';
import type { Clock, TimerHandle } from '../../../src/adapters/contract/clock';
import { TelegramAdapter } from '../../../src/adapters/telegram/adapter';
import type { TelegramAdapterConfig } from '../../../src/adapters/telegram/config';
import { FakeTelegramServer, type FakeTelegramOptions } from '../../fakes/telegram-server';

export class ScaledClock implements Clock {
  private readonly origin = performance.now();
  constructor(readonly factor = 20, private readonly start = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.start + (performance.now() - this.origin) * this.factor;
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    return setTimeout(fn, Math.ceil(Math.max(0, ms) / this.factor));
  }
  clearTimeout(h: TimerHandle): void {
    clearTimeout(h as NodeJS.Timeout);
  }
}

export { RecordingHandler } from '../helpers/recording-handler';

export interface Harness {
  server: FakeTelegramServer;
  clock: ScaledClock;
  adapter(overrides?: Partial<TelegramAdapterConfig>, deps?: { pollRestartMs?: number }): TelegramAdapter;
  /** Stops this adapter at cleanup too (adapters built elsewhere, e.g. by createTelegramBinding). */
  track(adapter: { stop(): Promise<void> }): void;
  /** Starts an HTTP listener on 127.0.0.1 with `mount` applied; returns its base URL. */
  listen(mount: (app: Express) => void): Promise<string>;
  cleanup(): Promise<void>;
}

export async function startHarness(options: FakeTelegramOptions & { factor?: number } = {}): Promise<Harness> {
  const clock = new ScaledClock(options.factor);
  const server = new FakeTelegramServer({ clock, ...options });
  const { apiRoot, token } = await server.start();
  const adapters: Array<{ stop(): Promise<void> }> = [];
  const listeners: http.Server[] = [];
  return {
    server,
    clock,
    adapter(overrides = {}, deps = {}) {
      const a = new TelegramAdapter({ botToken: token, apiRoot, mode: 'polling', draftStreaming: true, ...overrides }, { clock, ...deps });
      adapters.push(a);
      return a;
    },
    track(adapter) {
      adapters.push(adapter);
    },
    async listen(mount) {
      const app = express();
      mount(app);
      const s = http.createServer(app);
      listeners.push(s);
      await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', () => resolve()));
      return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    },
    async cleanup() {
      for (const a of adapters) await a.stop();
      await server.stop();
      for (const s of listeners) {
        await new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeAllConnections();
        });
      }
    },
  };
}

/** Waits a few event-loop turns (lets in-flight HTTP settle) without depending on wall-clock time. */
export async function settleIo(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((r) => setImmediate(r));
}
