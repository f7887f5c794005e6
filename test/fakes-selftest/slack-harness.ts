/**
 * Shared set-up for the fake Slack server's self-tests: one server per test, real `WebClient`s and
 * Bolt apps (HTTP receiver on 127.0.0.1, or Socket Mode) pointed at it, raw HTTP calls in any
 * encoding, and a silent logger. `cleanup()` stops every app and the server and waits until every
 * Socket Mode connection has closed, so no sockets or timers outlive a test.
 */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, LogLevel, SocketModeReceiver, type AppOptions, type Logger } from '@slack/bolt';
import { WebClient, type WebClientOptions } from '@slack/web-api';
import { FakeSlackServer, type FakeSlackOptions } from '../fakes/slack-server';

export const quietLogger = (): Logger => {
  let level = LogLevel.ERROR;
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: () => undefined,
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
};

export interface RawReply {
  status: number;
  headers: Headers;
  body: Record<string, any>;
}

export interface SlackHarness {
  server: FakeSlackServer;
  web(options?: WebClientOptions, token?: string): WebClient;
  raw(method: string, params?: Record<string, unknown>, opts?: { encoding?: 'json' | 'form'; token?: string | null; tokenIn?: 'header' | 'body' }): Promise<RawReply>;
  /** A Bolt app on the default HTTPReceiver, listening on 127.0.0.1; the fake delivers to it. */
  boltHttp(options?: Partial<AppOptions>): Promise<{ app: App; url: string }>;
  /** A Bolt app in Socket Mode whose apps.connections.open goes to the fake; started (connected). */
  boltSocket(options?: { clientPingTimeout?: number; serverPingTimeout?: number; app?: Partial<AppOptions>; start?: boolean }): Promise<App>;
  cleanup(): Promise<void>;
}

export async function startSlackHarness(options: FakeSlackOptions = {}): Promise<SlackHarness> {
  const server = new FakeSlackServer(options);
  const { apiUrl, botToken, appToken, signingSecret } = await server.start();
  const apps: App[] = [];
  return {
    server,
    web(opts = {}, token = botToken) {
      return new WebClient(token, { slackApiUrl: apiUrl, retryConfig: { retries: 0 }, logger: quietLogger(), ...opts });
    },
    async raw(method, params = {}, opts = {}) {
      const token = opts.token === undefined ? botToken : opts.token;
      const headers: Record<string, string> = {};
      const body: Record<string, unknown> = { ...params };
      if (token !== null && opts.tokenIn === 'body') body.token = token;
      else if (token !== null) headers.authorization = `Bearer ${token}`;
      let payload: string;
      if (opts.encoding === 'form') {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        payload = new URLSearchParams(Object.entries(body).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString();
      } else {
        headers['content-type'] = 'application/json; charset=utf-8';
        payload = JSON.stringify(body);
      }
      const res = await fetch(`${apiUrl}${method}`, { method: 'POST', headers, body: payload });
      const text = await res.text();
      let parsed: Record<string, any>;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = { raw: text };
      }
      return { status: res.status, headers: res.headers, body: parsed };
    },
    async boltHttp(appOptions = {}) {
      const app = new App({
        token: botToken, signingSecret, deferInitialization: true, logger: quietLogger(),
        clientOptions: { slackApiUrl: apiUrl, retryConfig: { retries: 0 } }, ...appOptions,
      });
      await app.init();
      const listening = (await app.start({ port: 0, host: '127.0.0.1' })) as http.Server;
      apps.push(app);
      const url = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/slack/events`;
      server.setRequestUrl(url);
      return { app, url };
    },
    async boltSocket(opts = {}) {
      const receiver = new SocketModeReceiver({
        appToken, logger: quietLogger(), clientPingTimeout: opts.clientPingTimeout ?? 600, serverPingTimeout: opts.serverPingTimeout ?? 30_000,
        installerOptions: { clientOptions: { slackApiUrl: apiUrl } },
      });
      const app = new App({
        token: botToken, receiver, deferInitialization: true, logger: quietLogger(), clientOptions: { slackApiUrl: apiUrl, retryConfig: { retries: 0 } },
        ...opts.app,
      });
      await app.init();
      apps.push(app);
      if (opts.start !== false) await app.start();
      return app;
    },
    async cleanup() {
      for (const app of apps.splice(0)) await app.stop().catch(() => undefined);
      await server.waitFor(() => server.socketConnections().every((c) => c.state === 'closed'), 5000, 'socket connections closed').catch(() => undefined);
      await server.stop();
    },
  };
}

/** Awaits a rejection and returns it (fails when the promise resolves). */
export async function rejection<E = any>(p: Promise<unknown>): Promise<E> {
  try {
    await p;
  } catch (err) {
    return err as E;
  }
  throw new Error('expected the call to fail');
}
