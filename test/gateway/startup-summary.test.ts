/**
 * The start-up summary from a real loaded config: the dashboard URL with how to log in (a wildcard bind
 * shown as the loopback address to open), every adapter on, failed, or off with the variable (or config
 * key) that turns it on, and each routed agent's model, saying plainly when no endpoint is configured.
 * A terminal gets the text block; off a terminal only JSON log records are written.
 */
import { loadGatewayConfig, type GatewayConfig } from '../../src/gateway/config';
import { createLogger } from '../../src/gateway/logger';
import type { AgentReport } from '../../src/gateway/runtime/agent-warmup';
import { dashboardUrl, printStartupSummary, startupSummary, type SummaryInput } from '../../src/gateway/startup-summary';

function config(env: Record<string, string> = {}): GatewayConfig {
  const r = loadGatewayConfig({ env: { HOME: '/nowhere', PENGUIN_HOME: '/srv/penguin', ...env }, cwd: '/nowhere' });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
}

const NO_ENDPOINT: AgentReport = {
  project: 'default_project', agent: 'default_agent',
  model: { label: 'openai/gpt-4o-mini', baseUrl: 'https://api.openai.com/v1' },
  setup: { problem: 'no model endpoint is configured (openai/gpt-4o-mini at https://api.openai.com/v1 has no API key)', fix: 'set OPENAI_API_KEY' },
};

function input(over: Partial<SummaryInput> = {}): SummaryInput {
  return { config: config(), url: 'http://127.0.0.1:7370', adapters: [{ name: 'web', state: 'connected' }], agents: [NO_ENDPOINT], adminToken: { source: 'generated', file: '/srv/penguin/admin-token' }, ...over };
}

function render(i: SummaryInput, isTTY: boolean): { text: string; log: Record<string, unknown>[] } {
  let text = '';
  let raw = '';
  const logger = createLogger({ logging: { level: 'info' } }, { write: (s: string) => void (raw += s) });
  printStartupSummary(startupSummary(i), { isTTY, write: (s: string) => (text += s) }, logger, '/srv/penguin');
  logger.flush();
  return { text, log: raw.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

it('on a terminal: the dashboard, every adapter with what turns it on, and the missing model endpoint', () => {
  const { text, log } = render(input(), true);
  expect(log).toEqual([]);
  expect(text.split('\n')).toEqual([
    '',
    'penguin-gateway is running; its data is in /srv/penguin',
    '  dashboard  http://127.0.0.1:7370/ (log in with the admin token in /srv/penguin/admin-token)',
    '  web        on: the Playground page of the dashboard',
    '  telegram   off: set TELEGRAM_BOT_TOKEN to enable it',
    '  slack      off: set SLACK_BOT_TOKEN and SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode) to enable it',
    '  discord    off: set DISCORD_BOT_TOKEN or DISCORD_TOKEN to enable it',
    '  model      no model endpoint is configured (openai/gpt-4o-mini at https://api.openai.com/v1 has no API key): the agent cannot answer',
    '             → set OPENAI_API_KEY',
    '`penguin-gateway doctor` checks every part with a real call.',
    '',
  ]);
});

it('off a terminal: only log records, for the dashboard and each adapter that is off', () => {
  const { text, log } = render(input(), false);
  expect(text).toBe('');
  expect(log.map((l) => [l.level, l.msg, l.platform ?? l.dashboard])).toEqual([
    [30, 'dashboard at http://127.0.0.1:7370/ (log in with the admin token in /srv/penguin/admin-token)', 'http://127.0.0.1:7370/'],
    [30, 'telegram is off: set TELEGRAM_BOT_TOKEN to enable it', 'telegram'],
    [30, 'slack is off: set SLACK_BOT_TOKEN and SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode) to enable it', 'slack'],
    [30, 'discord is off: set DISCORD_BOT_TOKEN or DISCORD_TOKEN to enable it', 'discord'],
  ]);
});

it('shows running and failed adapters, platforms turned off in the config, and a working model', () => {
  const cfg = config({ TELEGRAM_BOT_TOKEN: '1:abc', DISCORD_BOT_TOKEN: 'd.t.x' });
  cfg.slack.enabled = false;
  const lines = startupSummary(input({
    config: cfg,
    adapters: [{ name: 'web', state: 'connected' }, { name: 'telegram', state: 'connected' }, { name: 'discord', state: 'failed', detail: 'Discord rejected the bot token' }],
    agents: [{ project: 'default_project', agent: 'default_agent', model: { label: 'openai/gpt-4o-mini', baseUrl: 'http://127.0.0.1:11434/v1' } }],
    adminToken: { source: 'env' },
  }));
  expect(lines.map((l) => [l.topic, l.text, l.fix])).toEqual([
    ['dashboard', 'http://127.0.0.1:7370/ (log in with PENGUIN_ADMIN_TOKEN)', undefined],
    ['web', 'on: the Playground page of the dashboard', undefined],
    ['telegram', 'on', undefined],
    ['slack', 'off: disabled in the config (slack.enabled: false)', undefined],
    ['discord', 'failed: Discord rejected the bot token', '`penguin-gateway doctor` says why'],
    ['model', 'openai/gpt-4o-mini at http://127.0.0.1:11434/v1', undefined],
  ]);
});

it('names each agent when several are routed, including one that did not load', () => {
  const lines = startupSummary(input({ agents: [NO_ENDPOINT, { project: 'ops', agent: 'oncall', loadError: 'ops/.project_config.toml: default_model: expected a model id' }] }));
  expect(lines.filter((l) => l.topic.startsWith('model')).map((l) => [l.topic, l.text])).toEqual([
    ['model default_project/default_agent', expect.stringContaining('no model endpoint is configured')],
    ['model ops/oncall', 'the agent ops/oncall could not be loaded: ops/.project_config.toml: default_model: expected a model id'],
  ]);
});

it('says how to log in for each source of the admin credential', () => {
  const login = (adminToken: SummaryInput['adminToken']) => startupSummary(input({ adminToken }))[0].text;
  expect(login({ source: 'generated' })).toContain('log in with the admin token shown above');
  expect(login({ source: 'store' })).toContain('log in with the admin token from the first start, or the password set with `admin set-password`');
});

it('gives a wildcard listener as the loopback address to open', () => {
  expect(dashboardUrl('http://0.0.0.0:7370')).toEqual({ open: 'http://127.0.0.1:7370/', everyInterface: true });
  expect(dashboardUrl('http://[::]:8080')).toEqual({ open: 'http://127.0.0.1:8080/', everyInterface: true });
  expect(dashboardUrl('http://10.0.0.5:7370')).toEqual({ open: 'http://10.0.0.5:7370/', everyInterface: false });
  expect(startupSummary(input({ url: 'http://0.0.0.0:7370' }))[0].text).toBe('http://127.0.0.1:7370/ (log in with the admin token in /srv/penguin/admin-token; listening on every interface)');
});
