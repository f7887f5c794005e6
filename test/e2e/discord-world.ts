/**
 * One end-to-end Discord world per test: a temp dir, the fake Discord platform, the fake OpenAI server and
 * the real gateway process started on them through the public environment only (PENGUIN_HOME,
 * DISCORD_BOT_TOKEN / DISCORD_API_URL, OPENAI_*, PENGUIN_*, a config file). `start()` resolves once the bot
 * is connected with its slash commands registered; helpers read the `/ask` reply and its thread as a user
 * sees them. `close()` kills every gateway, stops the fakes and removes the temp dir, even after a failure.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { DISCORD_COMMANDS } from '../../src/adapters/discord/commands';
import { FakeDiscordServer, type FakeDiscordOptions, type MessageView } from '../fakes/discord-server';
import { FakeOpenAIServer, turn } from '../fakes/openai-server';
import { killAllGateways, spawnGateway, type GatewayProcess } from './gateway-process';
import { adminRequest } from './admin-request';

export const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';
export const MODEL_KEY = 'sk-e2e';

export interface DiscordWorldOptions {
  /** Merged over the defaults one level deep per top-level key (`discord` merged too). */
  config?: Record<string, any>;
  discord?: FakeDiscordOptions;
  /** Extra or overriding environment for the gateway process ('' means unset). */
  env?: Record<string, string>;
}

export interface DiscordWorld {
  dir: string;
  dc: FakeDiscordServer;
  model: FakeOpenAIServer;
  /** alice is on PENGUIN_ALLOW_USERS (her DMs are answered); bob is in the guild too. */
  alice: string;
  bob: string;
  readonly gw: GatewayProcess;
  /** Starts (another) gateway process on the same PENGUIN_HOME; resolves once the bot is ready. */
  start(): Promise<GatewayProcess>;
  admin(path: string, init?: { method?: string; body?: unknown }): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

const BASE_CONFIG = { logging: { level: 'info' }, shutdown: { grace_ms: 5000 } };

function mergeConfig(extra: Record<string, any> = {}): Record<string, any> {
  const out: Record<string, any> = { ...BASE_CONFIG };
  for (const [k, v] of Object.entries(extra)) {
    const base = (BASE_CONFIG as Record<string, any>)[k];
    out[k] = base && typeof v === 'object' && !Array.isArray(v) ? { ...base, ...v } : v;
  }
  return out;
}

const COMMANDS = DISCORD_COMMANDS.map((c) => String(c.name)).sort();

export async function openDiscordWorld(o: DiscordWorldOptions = {}): Promise<DiscordWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'pg-e2e-dc-'));
  const dc = new FakeDiscordServer({ gateway: { heartbeatIntervalMs: 1000 }, ...o.discord });
  const model = new FakeOpenAIServer({ apiKey: MODEL_KEY, untooled: turn({ text: 'Title' }) });
  let closed = false;
  try {
    const { apiRoot, token } = await dc.start();
    await model.start();
    const configFile = join(dir, 'gateway.yaml');
    await writeFile(configFile, stringify(mergeConfig(o.config)));
    const alice = dc.user('alice').id;
    const env: Record<string, string> = {
      PENGUIN_HOME: join(dir, 'data'),
      PENGUIN_GATEWAY_PORT: '0',
      PENGUIN_GATEWAY_CONFIG: configFile,
      PENGUIN_ADMIN_TOKEN: ADMIN_TOKEN,
      OPENAI_API_KEY: MODEL_KEY,
      OPENAI_BASE_URL: model.baseUrl,
      PENGUIN_MODEL: 'fake-model',
      DISCORD_BOT_TOKEN: token,
      DISCORD_API_URL: apiRoot,
      PENGUIN_DM_POLICY: 'allowlist',
      // Group access has its own tests; here guilds are open so tests stay about their feature.
      PENGUIN_GROUP_POLICY: 'open',
      PENGUIN_ALLOW_USERS: `discord:${alice}`,
      ...o.env,
    };
    let current: GatewayProcess | undefined;
    const world: DiscordWorld = {
      dir, dc, model, alice, bob: dc.user('bob').id,
      get gw() {
        if (!current) throw new Error('the gateway has not been started: call start() first');
        return current;
      },
      async start() {
        const lists = dc.callsTo('listGlobalCommands').length + dc.callsTo('listGuildCommands').length;
        current = await spawnGateway({ dir, env });
        const gw = current;
        // the bot is ready once it listed (and, if needed, wrote) its commands after READY
        await dc.waitFor(() => {
          const now = dc.callsTo('listGlobalCommands').length + dc.callsTo('listGuildCommands').length;
          const registered = dc.registeredCommands().map((c) => c.name).sort();
          return now > lists && JSON.stringify(registered) === JSON.stringify(COMMANDS) || undefined;
        }, 15_000, `the bot connected (gateway output:\n${gw.output()})`);
        return gw;
      },
      admin: (path, init) => adminRequest(world.gw.url, ADMIN_TOKEN, path, init),
      async close() {
        if (closed) return;
        closed = true;
        await killAllGateways();
        await Promise.all([dc.stop(), model.stop()]);
        await rm(dir, { recursive: true, force: true });
      },
    };
    return world;
  } catch (err) {
    await Promise.all([dc.stop(), model.stop()]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

const buttonLabelsOf = (m: MessageView): string[] => m.buttons.flat().map((b) => b.label ?? '');

export const hasButton = (m: MessageView, label: string): boolean => buttonLabelsOf(m).includes(label);
export const buttonLabels = buttonLabelsOf;

/** A reply that is done: no buttons left (no Stop), not a card. */
export const isFinal = (m: MessageView): boolean => m.buttons.length === 0 && !/^(✋|✅ \*\*Allowed|⛔ \*\*Denied|⌛)/u.test(m.content) && !m.loading;

/** The bot's messages in a thread, oldest first; none while the thread does not exist yet. */
export function inThread(dc: FakeDiscordServer, threadId: string): MessageView[] {
  return dc.channelView('general').threads.some((t) => t.id === threadId) ? dc.botMessages(threadId) : [];
}

/** The bot's messages of a conversation in order: the `/ask` reply (the thread's starter), then the thread. */
export function conversation(dc: FakeDiscordServer, threadId: string): MessageView[] {
  const starter = dc.allMessages(dc.channelId('general')).find((m) => m.id === threadId && !m.deleted);
  return [...(starter ? [starter] : []), ...inThread(dc, threadId)];
}

/** The custom_id of a button on a message. */
export function customIdOf(m: MessageView, label: string): string {
  const b = m.buttons.flat().find((x) => x.label === label);
  if (!b?.customId) throw new Error(`message ${m.id} has no button "${label}"`);
  return b.customId;
}
