/**
 * Shared set-up for the fake Discord platform's self-tests: one server per test with a short
 * heartbeat, real discord.js Clients pointed at it (REST, CDN and, through GET /gateway/bot, the
 * gateway), raw HTTP calls, and `cleanup()` that destroys every client and stops the server so no
 * socket or timer outlives a test.
 */
import { Client, Events, GatewayIntentBits, Partials, type ClientOptions } from 'discord.js';
import { FakeDiscordServer, type FakeDiscordOptions } from '../fakes/discord-server';

export interface DiscordHarness {
  server: FakeDiscordServer;
  /** A client (not logged in) with Guilds, GuildMessages, DirectMessages, Partials.Channel. */
  client(options?: Partial<ClientOptions>): Client;
  /** Logs a client in and resolves once it emitted clientReady. */
  login(client?: Client): Promise<Client>;
  raw(method: string, path: string, init?: { body?: unknown; auth?: string | false; headers?: Record<string, string> }): Promise<RawReply>;
  cleanup(): Promise<void>;
}

export interface RawReply {
  status: number;
  headers: Headers;
  body: any;
}

export const DEFAULT_INTENTS = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages];

/** An identify throttler that never waits (discord.js otherwise spaces re-IDENTIFYs 5 s apart). */
export const noIdentifyWait = { buildIdentifyThrottler: () => ({ waitForIdentify: async () => undefined }) };

export async function startHarness(options: FakeDiscordOptions = {}): Promise<DiscordHarness> {
  const server = new FakeDiscordServer({ ...options, gateway: { heartbeatIntervalMs: 250, ...options.gateway } });
  const { token } = await server.start();
  const clients: Client[] = [];
  const make = (extra: Partial<ClientOptions> = {}): Client => {
    const c = new Client({
      intents: DEFAULT_INTENTS,
      partials: [Partials.Channel],
      ...extra,
      rest: { ...server.clientOptions().rest, ...extra.rest },
      ws: { ...extra.ws },
    });
    clients.push(c);
    return c;
  };
  return {
    server,
    client: make,
    async login(client = make()) {
      const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
      await client.login(token);
      await ready;
      return client;
    },
    async raw(method, path, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      if (init.auth !== false) headers.authorization = init.auth ?? `Bot ${token}`;
      let body: string | undefined;
      if (init.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(init.body);
      }
      const res = await fetch(`${server.apiRoot}/v10${path}`, { method, headers, body });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
    },
    async cleanup() {
      for (const c of clients) await c.destroy().catch(() => undefined);
      await server.stop();
    },
  };
}

/** Awaits a rejection and returns it. */
export async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject');
}
