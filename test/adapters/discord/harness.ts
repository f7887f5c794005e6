/**
 * Set-up for the Discord adapter's integration tests: a FakeDiscordServer with a short heartbeat (the real
 * discord.js client inside the adapter connects to it through GET /gateway/bot), adapters pointed at its
 * REST root, and `cleanup()` that stops every adapter and the server so no socket or timer outlives a test.
 * `failure(call)` is the PlatformError a call must throw.
 */
import { isPlatformError, type PlatformError } from '../../../src/adapters/contract/errors';
import { DiscordAdapter, type DiscordAdapterDeps } from '../../../src/adapters/discord/adapter';
import type { DiscordAdapterConfig } from '../../../src/adapters/discord/config';
import { FakeDiscordServer, type FakeDiscordOptions } from '../../fakes/discord-server';

export { RecordingHandler } from '../helpers/recording-handler';

export interface DiscordHarness {
  server: FakeDiscordServer;
  token: string;
  apiRoot: string;
  adapter(overrides?: Partial<DiscordAdapterConfig>, deps?: DiscordAdapterDeps): DiscordAdapter;
  cleanup(): Promise<void>;
}

export async function startDiscordHarness(options: FakeDiscordOptions = {}): Promise<DiscordHarness> {
  const server = new FakeDiscordServer({ ...options, gateway: { heartbeatIntervalMs: 250, ...options.gateway } });
  const { apiRoot, token } = await server.start();
  const adapters: DiscordAdapter[] = [];
  return {
    server,
    token,
    apiRoot,
    adapter(overrides = {}, deps = {}) {
      const a = new DiscordAdapter({ botToken: token, apiUrl: apiRoot, guildIds: [], messageContent: false, ...overrides }, deps);
      adapters.push(a);
      return a;
    },
    async cleanup() {
      for (const a of adapters) await a.stop().catch(() => undefined);
      await server.stop();
    },
  };
}

/** The PlatformError `call` throws; anything else (or no failure) fails the test. */
export async function failure(call: () => Promise<unknown>): Promise<PlatformError> {
  try {
    await call();
  } catch (e) {
    if (isPlatformError(e)) return e;
    throw new Error(`expected a PlatformError, got ${String(e)}`);
  }
  throw new Error('expected the call to fail');
}
