/**
 * Two real gateway processes on one PostgreSQL database and one data dir, both with the Discord token,
 * against the fake Discord and the fake model: one of them leads the bot's shard and connects, the other
 * only sends (and says so in /readyz); a DM is answered once; after kill -9 of the shard holder the other
 * instance IDENTIFYs and answers the next DM. Skips when PostgreSQL is not installed.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { FakeDiscordServer } from '../fakes/discord-server';
import { FakeOpenAIServer, turn } from '../fakes/openai-server';
import { freshDatabase, POSTGRES_SKIPPED } from './cluster-world';
import { isFinal } from './discord-world';
import { assertGatewayBuilt, killAllGateways, spawnGateway, type GatewayProcess } from './gateway-process';
import { until } from './schedule-files';

const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';
const MODEL_KEY = 'sk-e2e';
/** A dead instance's lease lapses after this, so its conversations are taken over within seconds. */
const CONFIG = { logging: { level: 'info' }, shutdown: { grace_ms: 5000 }, cluster: { lease_ms: 3000 } };
const LEADS = 'discord: shard connected (this instance leads it)';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

beforeAll(() => assertGatewayBuilt());

const describeCluster = POSTGRES_SKIPPED ? describe.skip : describe;

describeCluster(`Discord on two gateway instances (real processes)${POSTGRES_SKIPPED ? ` [skipped: ${POSTGRES_SKIPPED}]` : ''}`, () => {
  it('one instance holds the shard and answers once; after kill -9 of it the other connects and answers', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pg-e2e-dc-cluster-'));
    const dc = new FakeDiscordServer({ gateway: { heartbeatIntervalMs: 1000 } });
    const model = new FakeOpenAIServer({ apiKey: MODEL_KEY, untooled: turn({ text: 'Title' }) });
    const db = await freshDatabase();
    cleanup = async () => {
      await killAllGateways();
      await Promise.all([dc.stop(), model.stop()]);
      await db.drop();
      await rm(dir, { recursive: true, force: true });
    };
    const { apiRoot, token } = await dc.start();
    await model.start();
    const configFile = join(dir, 'gateway.yaml');
    await writeFile(configFile, stringify(CONFIG));
    const alice = dc.user('alice').id;
    const env = {
      PENGUIN_HOME: join(dir, 'data'), PENGUIN_GATEWAY_PORT: '0', PENGUIN_GATEWAY_CONFIG: configFile, PENGUIN_ADMIN_TOKEN: ADMIN_TOKEN,
      OPENAI_API_KEY: MODEL_KEY, OPENAI_BASE_URL: model.baseUrl, PENGUIN_MODEL: 'fake-model',
      DISCORD_BOT_TOKEN: token, DISCORD_API_URL: apiRoot, PENGUIN_DM_POLICY: 'allowlist', PENGUIN_ALLOW_USERS: `discord:${alice}`,
      PENGUIN_DATABASE_URL: db.url,
    };
    const gw = new Map<string, GatewayProcess>();
    for (const id of ['a', 'b']) gw.set(id, await spawnGateway({ dir, env: { ...env, PENGUIN_INSTANCE_ID: id }, startTimeoutMs: 30_000 }));
    const leads = (id: string) => gw.get(id)!.output().includes(LEADS);
    const holder = await until('an instance to hold the shard', async () => ['a', 'b'].find(leads), 30_000);
    const other = holder === 'a' ? 'b' : 'a';
    const readyz = async (id: string) => (await (await fetch(`${gw.get(id)!.url}/readyz`)).json()) as { ready: boolean; adapters: Array<{ name: string; state: string; detail?: string }> };
    const discordOf = async (id: string) => (await readyz(id)).adapters.find((x) => x.name === 'discord');
    await until('the holder to be ready', async () => (await readyz(holder)).ready);
    expect(await discordOf(holder)).toMatchObject({ state: 'connected', detail: 'holds shard 0 of 1' });
    expect(await readyz(other)).toMatchObject({ ready: true });
    expect(await discordOf(other)).toMatchObject({ state: 'connected', detail: expect.stringMatching(/^sending only/) });
    expect(dc.identifies.filter((i) => i.outcome === 'ready')).toHaveLength(1);

    const dm = dc.dmChannelId('alice');
    model.enqueue(turn({ text: 'Answered once.' }));
    dc.dm('alice', 'first question');
    await dc.waitFor(() => dc.botMessages(dm).find((m) => isFinal(m) && m.content === 'Answered once.'), 15_000, 'the first answer');
    expect(dc.botMessages(dm).filter((m) => m.content.includes('Answered once.'))).toHaveLength(1);
    expect(leads(other)).toBe(false);

    await gw.get(holder)!.crash();
    await until('the other instance to connect the shard', async () => leads(other), 30_000);
    expect(dc.identifies.filter((i) => i.outcome === 'ready')).toHaveLength(2);
    await until('the survivor to be ready', async () => (await discordOf(other))?.detail === 'holds shard 0 of 1');
    model.enqueue(turn({ text: 'Answered by the survivor.' }));
    dc.dm('alice', 'second question');
    await dc.waitFor(() => dc.botMessages(dm).find((m) => isFinal(m) && m.content === 'Answered by the survivor.'), 30_000, 'the answer after the holder died');
    expect(dc.botMessages(dm).filter((m) => m.content.includes('Answered by the survivor.'))).toHaveLength(1);
  }, 120_000);
});
