/**
 * ShardLink against the fake Discord platform (real @discordjs/ws and @discordjs/rest): a link closed while it
 * is still logging in (its REST call for the gateway URL in flight) rejects its open() and leaves no
 * connection behind: once open() has settled, every websocket the fake saw is closed and stays closed. A
 * link whose READY never comes (its identify refused again and again) rejects open() at its READY timeout,
 * and close() returns and leaves none of its connections open, though its connect never settles.
 */
import pino from 'pino';
import { systemClock } from '../../../src/adapters/contract/clock';
import { createRest } from '../../../src/adapters/discord/client';
import { ConnectionHealth } from '../../../src/adapters/discord/health';
import { RateBook } from '../../../src/adapters/discord/rate';
import { ShardLink } from '../../../src/adapters/discord/shard-link';
import { FakeDiscordServer } from '../../fakes/discord-server';

let server: FakeDiscordServer;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function linkTo(apiRoot: string, token: string, readyTimeoutMs: number): ShardLink {
  const config = { botToken: token, apiUrl: apiRoot, guildIds: [], messageContent: false };
  return new ShardLink([0], {
    config,
    rest: createRest(config, new RateBook()),
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    health: new ConnectionHealth(() => Date.now()),
    readyTimeoutMs,
    onPacket: () => undefined,
  });
}
afterEach(async () => {
  await server?.stop();
});

it('closed while logging in: open() rejects and no gateway connection outlives it', async () => {
  server = new FakeDiscordServer({ gateway: { heartbeatIntervalMs: 250 } });
  const { apiRoot, token } = await server.start();
  const link = linkTo(apiRoot, token, 10_000);
  const opening = link.open();
  await link.close();
  await expect(opening).rejects.toThrow(/closed before READY/);
  // A client that went on connecting after close() would hold an identified, open socket now.
  for (let i = 0; i < 200 && server.gateway.connections.some((c) => !c.closed); i++) await sleep(10);
  expect(server.gateway.connections.filter((c) => !c.closed)).toEqual([]);
});

it('no READY ever: open() rejects at the READY timeout and close() leaves no connection of the link open', async () => {
  // One identify a minute: the first link's READY uses it, the second's identifies are refused (op 9) and it reconnects.
  server = new FakeDiscordServer({ gateway: { heartbeatIntervalMs: 250, identifyWindowMs: 60_000 } });
  const { apiRoot, token } = await server.start();
  const first = linkTo(apiRoot, token, 10_000);
  await first.open();
  const firstConnection = server.gateway.connections[0];
  const refused = linkTo(apiRoot, token, 800);
  await expect(refused.open()).rejects.toThrow(/did not send READY in time/);
  expect(server.identifies.length).toBeGreaterThan(1);
  expect(server.identifies.slice(1).every((i) => i.outcome === 9)).toBe(true);
  await refused.close();
  for (let i = 0; i < 200 && server.gateway.connections.some((c) => c !== firstConnection && !c.closed); i++) await sleep(10);
  // Past the package's reconnect delay (500 ms): a shard it was still bringing back would be open by now.
  await sleep(800);
  expect(server.gateway.connections.filter((c) => c !== firstConnection && !c.closed)).toEqual([]);
  expect(firstConnection.closed).toBe(false);
  await first.close();
});
