/**
 * ShardLink against the fake Discord platform (real discord.js): a link closed while it is still logging in
 * (its REST call for the gateway URL in flight) rejects its open() and leaves no connection behind: once
 * open() has settled, every websocket the fake saw is closed and stays closed.
 */
import pino from 'pino';
import { systemClock } from '../../../src/adapters/contract/clock';
import { ConnectionHealth } from '../../../src/adapters/discord/health';
import { RateBook } from '../../../src/adapters/discord/rate';
import { ShardLink } from '../../../src/adapters/discord/shard-link';
import { FakeDiscordServer } from '../../fakes/discord-server';

let server: FakeDiscordServer;
afterEach(async () => {
  await server?.stop();
});

it('closed while logging in: open() rejects and no gateway connection outlives it', async () => {
  server = new FakeDiscordServer({ gateway: { heartbeatIntervalMs: 250 } });
  const { apiRoot, token } = await server.start();
  const link = new ShardLink([0], {
    config: { botToken: token, apiUrl: apiRoot, guildIds: [], messageContent: false },
    book: new RateBook(),
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    health: new ConnectionHealth(() => Date.now()),
    readyTimeoutMs: 10_000,
    onPacket: () => undefined,
  });
  const opening = link.open();
  await link.close();
  await expect(opening).rejects.toThrow(/closed before READY/);
  // A client that went on connecting after close() would hold an identified, open socket now.
  for (let i = 0; i < 200 && server.gateway.connections.some((c) => !c.closed); i++) await new Promise((r) => setTimeout(r, 10));
  expect(server.gateway.connections.filter((c) => !c.closed)).toEqual([]);
});
