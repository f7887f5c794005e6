/**
 * Set-up for the Slack adapter's integration tests: a FakeSlackServer (real HTTP Web API, Events API
 * deliveries or Socket Mode), adapters pointed at it in HTTP mode (mounted on an express listener on
 * 127.0.0.1, the way the gateway mounts them) or Socket Mode, and a recording inbound handler with
 * event-driven waits. `cleanup()` stops every adapter, listener and the fake.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { SlackAdapter, type SlackAdapterDeps } from '../../../src/adapters/slack/adapter';
import type { SlackAdapterConfig } from '../../../src/adapters/slack/config';
import { FakeSlackServer, type FakeSlackOptions } from '../../fakes/slack-server';

export { RecordingHandler } from '../helpers/recording-handler';

export interface SlackHarness {
  server: FakeSlackServer;
  /** An adapter in HTTP mode whose route is mounted on a listener the fake delivers to (not started). */
  httpAdapter(overrides?: Partial<SlackAdapterConfig>, deps?: SlackAdapterDeps): Promise<SlackAdapter>;
  /** An adapter in Socket Mode (not started). */
  socketAdapter(overrides?: Partial<SlackAdapterConfig>, deps?: SlackAdapterDeps): SlackAdapter;
  cleanup(): Promise<void>;
}

export async function startSlackHarness(options: FakeSlackOptions = {}): Promise<SlackHarness> {
  const server = new FakeSlackServer(options);
  const { apiUrl, botToken, appToken, signingSecret } = await server.start();
  const adapters: SlackAdapter[] = [];
  const listeners: http.Server[] = [];
  const base = (mode: 'http' | 'socket'): SlackAdapterConfig => ({
    botToken, mode, apiUrl, threadFollowUp: true, nativeStreaming: true, socketSilenceMs: 0,
    ...(mode === 'http' ? { signingSecret } : { appToken }),
  });
  return {
    server,
    async httpAdapter(overrides = {}, deps = {}) {
      const a = new SlackAdapter({ ...base('http'), ...overrides }, deps);
      adapters.push(a);
      const app = express();
      a.httpRoutes()?.(app);
      const s = http.createServer(app);
      listeners.push(s);
      await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', () => resolve()));
      server.setRequestUrl(`http://127.0.0.1:${(s.address() as AddressInfo).port}/slack/events`);
      return a;
    },
    socketAdapter(overrides = {}, deps = {}) {
      const a = new SlackAdapter({ ...base('socket'), ...overrides }, deps);
      adapters.push(a);
      return a;
    },
    async cleanup() {
      for (const a of adapters) await a.stop();
      await server.waitFor(() => server.socketConnections().every((c) => c.state === 'closed'), 5000, 'socket connections closed').catch(() => undefined);
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
