/**
 * One end-to-end Telegram world per test: a temp dir, the fake Bot API server, the fake OpenAI server and
 * the real gateway process started on them through the public environment contract only (PENGUIN_HOME,
 * TELEGRAM_BOT_TOKEN/TELEGRAM_API_ROOT, OPENAI_*, PENGUIN_* and a config file via PENGUIN_GATEWAY_CONFIG).
 * Helpers read the chat as a user sees it: the bot's replies split into status header and answer.
 * `close()` kills every gateway process, stops both fakes and removes the temp dir, even after a failure.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { FakeOpenAIServer, turn } from '../fakes/openai-server';
import { isInlineKeyboard } from '../fakes/telegram-markup';
import type { MessageView } from '../fakes/telegram-store';
import { FakeTelegramServer, type FakeTelegramOptions } from '../fakes/telegram-server';
import { GATEWAY_CLI, killAllGateways, spawnGateway, type GatewayProcess } from './gateway-process';
import { adminRequest } from './admin-request';

export const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';
export const MODEL_KEY = 'sk-e2e';
/** The private chat (and user) id used by most tests; it is on PENGUIN_ALLOW_USERS. */
export const DM_USER = 42;

/** Short intervals so a test's streaming, edits and timeouts happen within a second or two. */
export const FAST_CONFIG = {
  logging: { level: 'info' },
  shutdown: { grace_ms: 5000 },
  telegram: { streaming: { dm_edit_interval_ms: 100, group_edit_interval_ms: 100, typing_renew_ms: 4000 } },
};

/**
 * The fake's flood control for tests that are not about it: Telegram's per-chat limit (burst 3, then 1/s)
 * refilled 10% faster. The gateway paces by its own clock when a request leaves, the fake counts when it
 * arrives, so loopback jitter on a loaded machine would otherwise turn an exactly-paced call into a stray 429
 * (and a several-second pause). Flood-control tests set the real or tighter limits themselves.
 */
export const LENIENT_LIMITS = { perChat: { burst: 3, rate: 1, perMs: 900 } };

export interface WorldOptions {
  /** Merged over FAST_CONFIG (one level deep per top-level key; `telegram.streaming` merged too). */
  config?: Record<string, any>;
  telegram?: FakeTelegramOptions;
  /** Extra or overriding environment for the gateway process (e.g. PENGUIN_DM_POLICY; '' means unset). */
  env?: Record<string, string>;
}

export interface World {
  dir: string;
  home: string;
  tg: FakeTelegramServer;
  model: FakeOpenAIServer;
  /** The gateway process started last (throws before the first `start()`). */
  readonly gw: GatewayProcess;
  /** Starts (another) gateway process on the same PENGUIN_HOME. */
  start(): Promise<GatewayProcess>;
  /** An admin API call; resolves with the status and the parsed JSON body. */
  admin(path: string, init?: { method?: string; body?: unknown }): Promise<{ status: number; body: any }>;
  /** Runs another CLI command (e.g. `pairing approve`) as its own process, with the gateway's environment. */
  cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
  close(): Promise<void>;
}

export function mergeConfig(extra: Record<string, any> = {}): Record<string, any> {
  const out: Record<string, any> = { ...FAST_CONFIG };
  for (const [k, v] of Object.entries(extra)) {
    const base = (FAST_CONFIG as Record<string, any>)[k];
    out[k] = base && typeof v === 'object' && !Array.isArray(v) ? { ...base, ...v } : v;
    if (k === 'telegram' && v.streaming) out.telegram.streaming = { ...FAST_CONFIG.telegram.streaming, ...v.streaming };
  }
  return out;
}

export interface GatewaySetup {
  dir: string;
  /** The fake Bot API's root and token; without them the gateway runs no Telegram (another platform's env comes in `env`). */
  apiRoot?: string;
  token?: string;
  /** The fake model's base URL. */
  modelUrl: string;
  /** The config file's content (already merged). */
  config: Record<string, any>;
  /** Extra or overriding environment. */
  env?: Record<string, string>;
}

/** Writes `<dir>/gateway.yaml` and returns the gateway's environment: data root `<dir>/data`, the fakes, DM_USER allowed. */
export async function writeGatewaySetup(s: GatewaySetup): Promise<Record<string, string>> {
  const configFile = join(s.dir, 'gateway.yaml');
  await writeFile(configFile, stringify(s.config));
  return {
    PENGUIN_HOME: join(s.dir, 'data'),
    PENGUIN_GATEWAY_PORT: '0',
    PENGUIN_GATEWAY_CONFIG: configFile,
    PENGUIN_ADMIN_TOKEN: ADMIN_TOKEN,
    OPENAI_API_KEY: MODEL_KEY,
    OPENAI_BASE_URL: s.modelUrl,
    PENGUIN_MODEL: 'fake-model',
    ...(s.token && s.apiRoot ? { TELEGRAM_BOT_TOKEN: s.token, TELEGRAM_API_ROOT: s.apiRoot } : {}),
    PENGUIN_DM_POLICY: 'allowlist',
    // Group access has its own test (security.test.ts); elsewhere groups are open so tests stay about their feature.
    PENGUIN_GROUP_POLICY: 'open',
    PENGUIN_ALLOW_USERS: `telegram:${DM_USER}`,
    ...s.env,
  };
}

/** Sets up the fakes and the temp dir; the gateway is started by `start()`. */
export async function openWorld(o: WorldOptions = {}): Promise<World> {
  const dir = await mkdtemp(join(tmpdir(), 'pg-e2e-tg-'));
  const tg = new FakeTelegramServer({ rateLimits: LENIENT_LIMITS, ...o.telegram });
  const model = new FakeOpenAIServer({ apiKey: MODEL_KEY, untooled: turn({ text: 'Title' }) });
  let closed = false;
  try {
    const { apiRoot, token } = await tg.start();
    await model.start();
    const env = await writeGatewaySetup({ dir, apiRoot, token, modelUrl: model.baseUrl, config: mergeConfig(o.config), env: o.env });
    let current: GatewayProcess | undefined;
    const world: World = {
      dir,
      home: env.PENGUIN_HOME,
      tg,
      model,
      get gw() {
        if (!current) throw new Error('the gateway has not been started: call start() first');
        return current;
      },
      async start() {
        current = await spawnGateway({ dir, env });
        return current;
      },
      admin: (path, init) => adminRequest(world.gw.url, ADMIN_TOKEN, path, init),
      cli(args) {
        return new Promise((done) => {
          execFile(process.execPath, [GATEWAY_CLI, ...args], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, ...env }, cwd: dir }, (err, stdout, stderr) => {
            done({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
          });
        });
      },
      async close() {
        if (closed) return;
        closed = true;
        await killAllGateways();
        await Promise.all([tg.stop(), model.stop()]);
        await rm(dir, { recursive: true, force: true });
      },
    };
    return world;
  } catch (err) {
    await Promise.all([tg.stop(), model.stop()]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/** A reply as the user reads it: a status line (live, or why it stopped early), tool lines, then the answer. */
export interface ReplyView {
  /** '' on a reply that finished normally. */
  status: string;
  toolLines: string[];
  answer: string;
}

const STATUS_LINE = /^(⛔ aborted|🔑 |⏹️ |✍️ |💭 |⚙️ running |✋ waiting|🔁 |🗜️ )/u;
const TOOL_LINE = /^(✅|❌|⛔|⏳|⚙️|✋|✏️) \S+(: |$| —)|^↳ |^… \d+ earlier tool call/u;
const CARD = /^(✋ Approval needed|✅ Allowed|⛔ Denied|⌛ Expired)/u;

export function splitReply(text: string): ReplyView {
  const lines = text.split('\n');
  let i = 0;
  const status = STATUS_LINE.test(lines[0] ?? '') ? lines[i++] : '';
  const toolLines: string[] = [];
  while (i < lines.length && TOOL_LINE.test(lines[i])) toolLines.push(lines[i++]);
  if ((status || toolLines.length) && lines[i] === '') i++;
  return { status, toolLines, answer: lines.slice(i).join('\n') };
}

/** Approval cards (pending or decided). */
export function isCard(m: MessageView): boolean {
  return CARD.test(m.text ?? '');
}

/** A reply that is done: a real message, no buttons left (no Stop), not a card. */
export function isFinalReply(m: MessageView): boolean {
  return !isCard(m) && buttonLabels(m).length === 0 && !(m.text ?? '').startsWith('⚠️');
}

/** A live reply still running: it carries the Stop button. */
export function isRunningReply(m: MessageView): boolean {
  return hasButton(m, 'Stop');
}

/** The labels of a message's inline buttons, row by row flattened. */
export function buttonLabels(m: MessageView): string[] {
  return isInlineKeyboard(m.reply_markup) ? m.reply_markup.inline_keyboard.flat().map((b) => b.text) : [];
}

export function hasButton(m: MessageView, label: string): boolean {
  return buttonLabels(m).includes(label);
}
