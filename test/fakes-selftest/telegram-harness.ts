/**
 * Shared set-up for the fake Telegram server's self-tests: one server per test, real grammY bots
 * pointed at it, raw HTTP calls in any encoding, and a helper that awaits a rejection as GrammyError.
 * `cleanup()` stops every bot and the server, so no sockets or timers outlive a test.
 */
import { Bot, GrammyError } from 'grammy';
import { FakeTelegramServer, type FakeTelegramOptions } from '../fakes/telegram-server';

export interface Harness {
  server: FakeTelegramServer;
  bot(): Bot;
  raw(method: string, params?: Record<string, unknown>, encoding?: 'json' | 'query' | 'form'): Promise<RawReply>;
  cleanup(): Promise<void>;
}

export interface RawReply {
  status: number;
  ok: boolean;
  result?: any;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number };
}

export async function startHarness(options: FakeTelegramOptions = {}): Promise<Harness> {
  const server = new FakeTelegramServer(options);
  const { apiRoot, token } = await server.start();
  const bots: Bot[] = [];
  return {
    server,
    bot() {
      const b = new Bot(token, { client: { apiRoot } });
      bots.push(b);
      return b;
    },
    async raw(method, params = {}, encoding = 'json') {
      const url = new URL(`${apiRoot}/bot${token}/${method}`);
      let init: RequestInit;
      const asStrings = Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)] as [string, string]);
      if (encoding === 'query') {
        for (const [k, v] of asStrings) url.searchParams.set(k, v);
        init = { method: 'GET' };
      } else if (encoding === 'form') {
        init = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(asStrings).toString() };
      } else {
        init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) };
      }
      const res = await fetch(url, init);
      return { status: res.status, ...((await res.json()) as Omit<RawReply, 'status'>) };
    },
    async cleanup() {
      for (const b of bots) if (b.isRunning()) await b.stop().catch(() => undefined);
      await server.stop();
    },
  };
}

/** Awaits a rejection and returns it, failing unless it is a GrammyError. */
export async function grammyError(p: Promise<unknown>): Promise<GrammyError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof GrammyError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}
