/**
 * One end-to-end Slack world per test: a temp dir, the fake Slack (Web API, signed Events API deliveries
 * or Socket Mode), the fake OpenAI server and the real gateway process started on them through the public
 * environment contract only (SLACK_BOT_TOKEN + SLACK_SIGNING_SECRET or SLACK_APP_TOKEN, SLACK_API_URL,
 * OPENAI_*, PENGUIN_*, a config file). In HTTP mode the fake delivers to the gateway's /slack/events once it
 * listens. Helpers read a thread as a person sees it. `close()` kills gateways, stops the fakes, removes the dir.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { FakeOpenAIServer, turn } from '../fakes/openai-server';
import { buttonsOf } from '../fakes/slack-blocks';
import { FakeSlackServer, type FakeSlackOptions, type SlackMessageView } from '../fakes/slack-server';
import { killAllGateways, spawnGateway, type GatewayProcess } from './gateway-process';
import { adminRequest } from './admin-request';

export const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';
export const MODEL_KEY = 'sk-e2e';
/** alice, the fake's default user: on PENGUIN_ALLOW_USERS, so her DMs are answered. */
export const ALICE = 'U0000ALICE';

/** Short intervals so a test's streaming, edits and timeouts happen within a second or two. */
export const FAST_CONFIG = {
  logging: { level: 'info' },
  shutdown: { grace_ms: 5000 },
  slack: { streaming: { dm_edit_interval_ms: 150, group_edit_interval_ms: 150, typing_renew_ms: 60000 } },
};

export interface SlackWorldOptions {
  /** Merged over FAST_CONFIG (one level deep per top-level key; `slack.streaming` merged too). */
  config?: Record<string, any>;
  slack?: FakeSlackOptions;
  /** 'http' (default): Events API at POST /slack/events; 'socket': Socket Mode over the app token. */
  mode?: 'http' | 'socket';
  env?: Record<string, string>;
}

export interface SlackWorld {
  dir: string;
  slack: FakeSlackServer;
  model: FakeOpenAIServer;
  readonly gw: GatewayProcess;
  start(): Promise<GatewayProcess>;
  admin(path: string, init?: { method?: string; body?: unknown }): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export function mergeSlackConfig(extra: Record<string, any> = {}): Record<string, any> {
  const out: Record<string, any> = { ...FAST_CONFIG };
  for (const [k, v] of Object.entries(extra)) {
    const base = (FAST_CONFIG as Record<string, any>)[k];
    out[k] = base && typeof v === 'object' && !Array.isArray(v) ? { ...base, ...v } : v;
    if (k === 'slack' && v.streaming) out.slack.streaming = { ...FAST_CONFIG.slack.streaming, ...v.streaming };
  }
  return out;
}

/** The gateway's Slack environment for the fake's credentials in `mode`, ALICE allowed. */
export function slackEnv(c: { apiUrl: string; botToken: string; appToken: string; signingSecret: string }, mode: 'http' | 'socket'): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: c.botToken,
    SLACK_API_URL: c.apiUrl,
    ...(mode === 'http' ? { SLACK_SIGNING_SECRET: c.signingSecret } : { SLACK_APP_TOKEN: c.appToken }),
    PENGUIN_ALLOW_USERS: `slack:${ALICE}`,
  };
}

export async function openSlackWorld(o: SlackWorldOptions = {}): Promise<SlackWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'pg-e2e-slack-'));
  const mode = o.mode ?? 'http';
  const slack = new FakeSlackServer({ delivery: mode, ...o.slack });
  const model = new FakeOpenAIServer({ apiKey: MODEL_KEY, untooled: turn({ text: 'Title' }) });
  let closed = false;
  try {
    const { apiUrl, botToken, appToken, signingSecret } = await slack.start();
    await model.start();
    const configFile = join(dir, 'gateway.yaml');
    await writeFile(configFile, stringify(mergeSlackConfig(o.config)));
    const env: Record<string, string> = {
      PENGUIN_HOME: join(dir, 'data'),
      PENGUIN_GATEWAY_PORT: '0',
      PENGUIN_GATEWAY_CONFIG: configFile,
      PENGUIN_ADMIN_TOKEN: ADMIN_TOKEN,
      OPENAI_API_KEY: MODEL_KEY,
      OPENAI_BASE_URL: model.baseUrl,
      PENGUIN_MODEL: 'fake-model',
      ...slackEnv({ apiUrl, botToken, appToken, signingSecret }, mode),
      PENGUIN_DM_POLICY: 'allowlist',
      ...o.env,
    };
    let current: GatewayProcess | undefined;
    const world: SlackWorld = {
      dir,
      slack,
      model,
      get gw() {
        if (!current) throw new Error('the gateway has not been started: call start() first');
        return current;
      },
      async start() {
        current = await spawnGateway({ dir, env });
        if (mode === 'http') slack.setRequestUrl(`${current.url}/slack/events`);
        await waitReady(current);
        return current;
      },
      admin: (path, init) => adminRequest(world.gw.url, ADMIN_TOKEN, path, init),
      async close() {
        if (closed) return;
        closed = true;
        await killAllGateways();
        await Promise.all([slack.stop(), model.stop()]);
        await rm(dir, { recursive: true, force: true });
      },
    };
    return world;
  } catch (err) {
    await Promise.all([slack.stop(), model.stop()]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/** /readyz green: the Slack adapter has started (auth.test done, Socket Mode connected). */
export async function waitReady(gw: GatewayProcess): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const r = await fetch(`${gw.url}/readyz`).catch(() => undefined);
    if (r?.status === 200) return;
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error(`the gateway never became ready:\n${gw.output()}`);
}

/** What the helpers below read: any world with the fake Slack (a cluster world too). */
export type WithSlack = Pick<SlackWorld, 'slack'>;

/** The bot's replies in a thread (the parent left out), oldest first. */
export function botReplies(w: WithSlack, channel: string, threadTs: string): SlackMessageView[] {
  return w.slack.thread(channel, threadTs).filter((m) => m.from === 'bot' && m.ts !== threadTs);
}

export function buttonLabels(m: SlackMessageView): string[] {
  return buttonsOf(m.blocks).map((b) => b.text);
}

export const hasButton = (m: SlackMessageView, label: string): boolean => buttonLabels(m).includes(label);

const CARD = /^(✋ Approval needed|✅ Allowed|⛔ Denied|⌛ Expired)/u;

export const isCard = (m: SlackMessageView): boolean => CARD.test(m.visibleText);

/** A finished reply: not a card, no buttons left, not a notice, no stream still open. */
export function isFinalReply(m: SlackMessageView): boolean {
  return !isCard(m) && buttonLabels(m).length === 0 && !m.visibleText.startsWith('⚠️') && m.stream?.state !== 'in_progress';
}

/** The finished reply in the thread whose text contains `text`. */
export function waitForFinal(w: WithSlack, channel: string, threadTs: string, text: string, ms = 15_000): Promise<SlackMessageView> {
  return w.slack.waitFor(() => botReplies(w, channel, threadTs).find((m) => isFinalReply(m) && m.visibleText.includes(text)), ms, `final reply with "${text}"`);
}

export function waitForCard(w: WithSlack, channel: string, threadTs: string): Promise<SlackMessageView> {
  return w.slack.waitFor(() => botReplies(w, channel, threadTs).find((m) => hasButton(m, 'Allow')), 15_000, 'approval card');
}
