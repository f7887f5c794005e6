/**
 * The REST client the adapter sends with: its requests go through plainFetch, and a network failure reaches
 * the error classifier as the system error it was (its code, its words), not as fetch's "fetch failed".
 */
import { createServer } from 'node:net';
import { createRest } from '../../../src/adapters/discord/client';
import { classifyDiscordError } from '../../../src/adapters/discord/errors';
import { RateBook } from '../../../src/adapters/discord/rate';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

it('throws a refused connection as the system error, which classifies as a retry with its code', async () => {
  const port = await closedPort();
  const rest = createRest({ botToken: 'MTIz.a.b', apiUrl: `http://127.0.0.1:${port}/api`, guildIds: [], messageContent: false }, new RateBook());
  const err = await rest.get('/gateway/bot').then(() => undefined, (e: unknown) => e);
  expect(err).toMatchObject({ code: 'ECONNREFUSED' });
  const classified = classifyDiscordError(err);
  expect(classified.classification).toEqual({ kind: 'retry' });
  expect(classified.code).toBe('ECONNREFUSED');
  expect(classified.message).toMatch(/ECONNREFUSED/);
});
