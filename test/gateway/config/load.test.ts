/** loadGatewayConfig: defaults, env overrides, file discovery, and one exact error per kind of mistake. */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatConfigErrors, loadGatewayConfig, redactConfig, type ConfigError, type GatewayConfig } from '../../../src/gateway/config';

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'pg-config-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

const HOME = '/home/op';
function load(yaml?: string, env: Record<string, string> = {}, argv: string[] = []) {
  if (yaml !== undefined) {
    mkdirSync(join(cwd, 'config'), { recursive: true });
    writeFileSync(join(cwd, 'config', 'gateway.yaml'), yaml);
  }
  return loadGatewayConfig({ argv, env: { HOME, ...env }, cwd });
}
function ok(yaml?: string, env?: Record<string, string>, argv?: string[]): GatewayConfig {
  const r = load(yaml, env, argv);
  if (!r.ok) throw new Error(formatConfigErrors(r.errors));
  return r.config;
}
function errs(yaml?: string, env?: Record<string, string>, argv?: string[]): ConfigError[] {
  const r = load(yaml, env, argv);
  if (r.ok) throw new Error('expected errors');
  return r.errors;
}

describe('defaults', () => {
  it('runs with no config file at all', () => {
    const c = ok();
    expect(c.config_file).toBeUndefined();
    expect(c.home).toBe('/home/op/.penguin/data');
    expect(c.db_path).toBe('/home/op/.penguin/data/gateway.db');
    expect(c.listen).toEqual({ host: '127.0.0.1', port: 7370 });
    expect(c.approvals.timeout_ms).toBe(3_600_000);
    expect(c.sessions).toEqual({ idle_evict_ms: 1_800_000, max_in_memory: 10_000, idle_gc_ms: 1000, young_generation_mb: 8 });
    expect(c.shutdown.grace_ms).toBe(10_000);
    expect(c.logging.level).toBe('info');
    expect(c.telegram).toMatchObject({ enabled: true, configured: false, dm_policy: 'pairing', mode: 'polling', draft_streaming: true, api_root: 'https://api.telegram.org' });
    expect(c.telegram.streaming).toEqual({ dm_edit_interval_ms: 1000, group_edit_interval_ms: 3000, typing_renew_ms: 4000 });
    expect(c.slack).toMatchObject({ configured: false, api_url: 'https://slack.com/api/' });
    expect(c.slack.mode).toBeUndefined();
    expect(c.discord).toMatchObject({ configured: false, api_url: 'https://discord.com/api' });
    expect(c.web).toMatchObject({ enabled: true, configured: true });
    expect(c.default_route).toEqual({
      name: 'default', project: 'default_project', agent: 'default_agent', approval_mode: 'read-only', workspace_policy: 'temp',
      approvers: [], access: { users: [], roles: [], channels: [] }, tools: { network: true },
    });
    expect(c.routes).toEqual([]);
    expect(c.allow_users).toEqual([]);
    expect(c.admin_token).toBeUndefined();
    expect(c.model).toEqual({});
  });

  it('treats an empty file like no file', () => {
    const none = ok();
    const { config_file, ...rest } = ok('');
    expect(config_file).toBe(join(cwd, 'config', 'gateway.yaml'));
    expect(rest).toEqual(none);
  });
});

describe('environment', () => {
  it('overrides the file and the defaults', () => {
    const c = ok('listen: {host: 0.0.0.0, port: 8000}\nhome: /srv/file-home\n', {
      PENGUIN_HOME: 'data',
      PENGUIN_GATEWAY_HOST: '10.0.0.5',
      PENGUIN_GATEWAY_PORT: '9001',
      PENGUIN_ADMIN_TOKEN: 'admintok-0123456789abcdefghij',
      OPENAI_API_KEY: 'sk-1',
      OPENAI_BASE_URL: 'http://127.0.0.1:9999/v1',
      PENGUIN_MODEL: 'gpt-x',
      TELEGRAM_BOT_TOKEN: '123:abc',
      TELEGRAM_API_ROOT: 'http://127.0.0.1:8081',
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_APP_TOKEN: 'xapp-1',
      SLACK_API_URL: 'http://127.0.0.1:8082/api/',
      DISCORD_BOT_TOKEN: 'dtok',
      DISCORD_API_URL: 'http://127.0.0.1:8083/api',
      PENGUIN_DM_POLICY: 'open',
      PENGUIN_ALLOW_USERS: ' telegram:42, slack:U123 ,,discord:80351110224678912,telegram:42',
    });
    expect(c.home).toBe(join(cwd, 'data'));
    expect(c.db_path).toBe(join(cwd, 'data', 'gateway.db'));
    expect(c.listen).toEqual({ host: '10.0.0.5', port: 9001 });
    expect(c.admin_token).toBe('admintok-0123456789abcdefghij');
    expect(c.model).toEqual({ api_key: 'sk-1', base_url: 'http://127.0.0.1:9999/v1', model_id: 'gpt-x' });
    expect(c.telegram).toMatchObject({ configured: true, bot_token: '123:abc', api_root: 'http://127.0.0.1:8081', dm_policy: 'open' });
    expect(c.slack).toMatchObject({ configured: true, mode: 'socket', app_token: 'xapp-1', api_url: 'http://127.0.0.1:8082/api/' });
    expect(c.discord).toMatchObject({ configured: true, bot_token: 'dtok', api_url: 'http://127.0.0.1:8083/api' });
    expect(c.allow_users).toEqual(['telegram:42', 'slack:U123', 'discord:80351110224678912']);
  });

  it('lets a platform dm_policy in the file win over PENGUIN_DM_POLICY', () => {
    const c = ok('discord: {dm_policy: disabled}\n', { PENGUIN_DM_POLICY: 'allowlist' });
    expect(c.discord.dm_policy).toBe('disabled');
    expect(c.telegram.dm_policy).toBe('allowlist');
  });

  it('picks Slack HTTP mode from a signing secret alone, and keeps disabled platforms unconfigured', () => {
    const c = ok('telegram: {enabled: false}\n', { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's3cret', TELEGRAM_BOT_TOKEN: '1:a' });
    expect(c.slack.mode).toBe('http');
    expect(c.telegram.configured).toBe(false);
  });

  it('treats empty variables as unset and uses the file values under them', () => {
    const c = ok('listen: {port: 8123}\n', { PENGUIN_GATEWAY_PORT: '', PENGUIN_HOME: '  ' });
    expect(c.listen.port).toBe(8123);
    expect(c.home).toBe('/home/op/.penguin/data');
  });

  it('names a bad port variable precisely', () => {
    expect(errs(undefined, { PENGUIN_GATEWAY_PORT: '70000' }).map((e) => e.message)).toEqual([
      'environment: PENGUIN_GATEWAY_PORT: expected an integer port 0-65535, found "70000"',
    ]);
    expect(errs(undefined, { PENGUIN_GATEWAY_PORT: '80x' })[0].message).toBe('environment: PENGUIN_GATEWAY_PORT: expected an integer port 0-65535, found "80x"');
  });

  it('names each bad PENGUIN_ALLOW_USERS entry', () => {
    const e = errs(undefined, { PENGUIN_ALLOW_USERS: 'telegram:42,matrix:7,telegram:abc' });
    expect(e.map((x) => [x.source, x.path, x.found])).toEqual([
      ['environment', 'PENGUIN_ALLOW_USERS', 'entry 2 "matrix:7"'],
      ['environment', 'PENGUIN_ALLOW_USERS', 'entry 3 "telegram:abc"'],
    ]);
    expect(e[0].expected).toMatch(/^platform:user_id/);
  });

  it('validates the other variables', () => {
    const e = errs(undefined, {
      PENGUIN_DM_POLICY: 'friends',
      OPENAI_BASE_URL: 'localhost:1234',
      SLACK_APP_TOKEN: 'xoxb-wrong',
      TELEGRAM_BOT_TOKEN: 'a b',
    });
    expect(e.map((x) => x.path).sort()).toEqual(['OPENAI_BASE_URL', 'PENGUIN_DM_POLICY', 'SLACK_APP_TOKEN', 'TELEGRAM_BOT_TOKEN']);
    expect(e.find((x) => x.path === 'PENGUIN_DM_POLICY')?.message).toBe('environment: PENGUIN_DM_POLICY: expected one of pairing|allowlist|open|disabled, found "friends"');
  });

  it('takes DISCORD_TOKEN as another name for DISCORD_BOT_TOKEN, and refuses the two set to different tokens', () => {
    expect(ok(undefined, { DISCORD_TOKEN: 'dtok' }).discord).toMatchObject({ configured: true, bot_token: 'dtok' });
    expect(ok(undefined, { DISCORD_TOKEN: 'dtok', DISCORD_BOT_TOKEN: ' dtok ' }).discord).toMatchObject({ configured: true, bot_token: 'dtok' });
    expect(ok(undefined, { DISCORD_TOKEN: '', DISCORD_BOT_TOKEN: 'dtok' }).discord.bot_token).toBe('dtok');
    expect(errs(undefined, { DISCORD_TOKEN: 'one', DISCORD_BOT_TOKEN: 'two' }).map((e) => e.message)).toEqual([
      'environment: DISCORD_TOKEN: expected the same value as DISCORD_BOT_TOKEN (both name the Discord bot token; set only one), found a different token than DISCORD_BOT_TOKEN',
    ]);
    expect(errs(undefined, { DISCORD_TOKEN: 'a b' })[0].path).toBe('DISCORD_TOKEN');
  });

  it('takes a PostgreSQL URL for the index and refuses anything else, never echoing its password', () => {
    expect(ok(undefined, { PENGUIN_DATABASE_URL: 'postgres://gw:pw@db:5432/penguin' }).database_url).toBe('postgres://gw:pw@db:5432/penguin');
    expect(ok(undefined, { PENGUIN_DATABASE_URL: 'postgresql://db/penguin?sslmode=require' }).database_url).toBe('postgresql://db/penguin?sslmode=require');
    expect(ok()).not.toHaveProperty('database_url');
    const [mysql] = errs(undefined, { PENGUIN_DATABASE_URL: 'mysql://gw:hunter2@db/penguin' });
    expect(mysql).toMatchObject({ path: 'PENGUIN_DATABASE_URL', found: '"mysql://gw:***@db/penguin"' });
    expect(mysql.expected).toMatch(/^a PostgreSQL URL, postgres:\/\//);
    expect(errs(undefined, { PENGUIN_DATABASE_URL: 'gw secret@db' })[0].found).toBe('a value that is not a URL');
  });

  it('requires a Slack mode credential next to the bot token', () => {
    expect(errs(undefined, { SLACK_BOT_TOKEN: 'xoxb-1' }).map((e) => e.message)).toEqual([
      'environment: SLACK_BOT_TOKEN: expected SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode) alongside it, found neither',
    ]);
    expect(errs('slack: {mode: socket}\n', { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' })[0].path).toBe('SLACK_APP_TOKEN');
    expect(errs('slack: {mode: http}\n', { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' })[0].path).toBe('SLACK_SIGNING_SECRET');
  });
});

describe('file discovery', () => {
  it('reads --config, then PENGUIN_GATEWAY_CONFIG, then config/gateway.yaml', () => {
    writeFileSync(join(cwd, 'a.yaml'), 'listen: {port: 1111}\n');
    writeFileSync(join(cwd, 'b.yaml'), 'listen: {port: 2222}\n');
    const fallback = 'listen: {port: 3333}\n';
    expect(ok(fallback, { PENGUIN_GATEWAY_CONFIG: 'b.yaml' }, ['start', '--config', 'a.yaml']).listen.port).toBe(1111);
    expect(ok(fallback, { PENGUIN_GATEWAY_CONFIG: 'b.yaml' }, ['--config=a.yaml']).listen.port).toBe(1111);
    expect(ok(fallback, { PENGUIN_GATEWAY_CONFIG: 'b.yaml' }).listen.port).toBe(2222);
    expect(ok(fallback).listen.port).toBe(3333);
  });

  it('fails when an explicitly named file is missing', () => {
    expect(errs(undefined, {}, ['--config', 'nope.yaml'])[0].message).toBe('command line: --config: expected an existing config file, found "nope.yaml" (no such file)');
    expect(errs(undefined, { PENGUIN_GATEWAY_CONFIG: 'gone.yaml' })[0].message).toBe('environment: PENGUIN_GATEWAY_CONFIG: expected an existing config file, found "gone.yaml" (no such file)');
    expect(errs(undefined, {}, ['--config'])[0].message).toBe('command line: --config: expected a config file path after --config, found nothing');
  });
});

describe('file errors', () => {
  const F = 'config/gateway.yaml';

  it('reports an unknown key with its path and line', () => {
    const e = errs('telegram:\n  enabled: true\n  polling_mode: webhook\n');
    expect(e).toHaveLength(1);
    expect(e[0]).toMatchObject({ source: F, path: 'telegram.polling_mode', line: 3, found: 'unknown key "polling_mode"' });
    expect(e[0].expected).toMatch(/^one of the known keys \(enabled, dm_policy, group_policy, mode, /);
  });

  it('reports an unknown top-level key', () => {
    expect(errs('listen: {}\nlisten_port: 1\n')[0]).toMatchObject({ path: 'listen_port', line: 2 });
  });

  it('reports a wrong type', () => {
    const e = errs('listen:\n  port: "eighty"\n');
    expect(e.map((x) => x.message)).toEqual([`${F}: listen.port: expected an integer port 0-65535, found "eighty" (line 2, column 9)`]);
    expect(errs('approvals: {timeout_ms: 1.5}\n')[0]).toMatchObject({ path: 'approvals.timeout_ms', found: '1.5' });
    expect(errs('telegram: {draft_streaming: "yes"}\n')[0]).toMatchObject({ path: 'telegram.draft_streaming', expected: 'true or false', found: '"yes"' });
    expect(errs('routes: {}\n')[0]).toMatchObject({ path: 'routes', expected: 'a list of routes', found: 'a mapping' });
    expect(errs('sessions: {max_in_memory: 0}\n')[0]).toMatchObject({ path: 'sessions.max_in_memory', expected: 'a number of sessions (an integer >= 1)', found: '0' });
    expect(errs('sessions: {heap_budget_mb: 8}\n')[0]).toMatchObject({ path: 'sessions.heap_budget_mb', expected: 'a heap size in MB (an integer >= 16)', found: '8' });
    expect(errs('sessions: {idle_gc_ms: -1}\n')[0]).toMatchObject({ path: 'sessions.idle_gc_ms', found: '-1' });
    expect(errs('sessions: {idle_gc_ms: "soon"}\n')[0]).toMatchObject({ path: 'sessions.idle_gc_ms', expected: 'the quiet time before an idle collection (0 turns it off) in milliseconds (an integer >= 0)', found: '"soon"' });
    expect(errs('sessions: {young_generation_mb: -4}\n')[0]).toMatchObject({ path: 'sessions.young_generation_mb', expected: 'a size in MB (an integer >= 0; 0 leaves V8 its own)', found: '-4' });
    expect(errs('sessions: {young_generation_mb: 2.5}\n')[0]).toMatchObject({ path: 'sessions.young_generation_mb', found: '2.5' });
  });

  it('reports a bad enum value exactly as documented', () => {
    const e = errs('routes:\n  - match: {platform: slack, channel: C1}\n  - match: {platform: slack, channel: C2}\n    approval_mode: sometimes\n');
    expect(e).toHaveLength(1);
    expect(e[0].message).toBe(`${F}: routes[1].approval_mode: expected one of allow-all|deny-all|read-only|always-ask, found "sometimes" (line 4, column 20)`);
  });

  it('reports every error at once', () => {
    const e = errs('logging: {level: loud}\nslack: {dm_policy: maybe}\nrouts: []\n', { PENGUIN_GATEWAY_PORT: 'x' });
    expect(e.map((x) => x.path).sort()).toEqual(['PENGUIN_GATEWAY_PORT', 'logging.level', 'routs', 'slack.dm_policy']);
    expect(formatConfigErrors(e).split('\n')).toHaveLength(4);
  });

  it('reports invalid YAML with its line', () => {
    const e = errs('listen:\n  port: 1\nroutes: [\n  {a: 1}\n');
    expect(e.length).toBeGreaterThan(0);
    expect(e[0]).toMatchObject({ source: F, path: '(syntax)', expected: 'valid YAML' });
    expect(e[0].line).toBeGreaterThanOrEqual(3);
    expect(e[0].message).toMatch(/^config\/gateway\.yaml: \(syntax\): expected valid YAML, found .+ \(line \d+, column \d+\)$/);
    expect(errs('a: 1\na: 2\n')[0]).toMatchObject({ path: '(syntax)', line: 2 });
  });

  it('rejects a file that is not a mapping', () => {
    expect(errs('- a\n- b\n')[0].message).toBe(`${F}: (root): expected a mapping of settings, found a list of 2 (line 1, column 1)`);
  });

  it('checks bad ids, user refs and URLs', () => {
    const e = errs('routes:\n  - match: {platform: discord, guild: 1123456789012345678}\n    approvers: [discord:12, slack:u-lower]\ndiscord: {api_url: "ftp://x"}\n');
    expect(e.map((x) => x.path)).toEqual(['discord.api_url', 'routes[0].match.guild', 'routes[0].approvers[1]']);
    expect(e[1].expected).toMatch(/quote/);
  });

  it('checks platform scope keys, workspace rules, names and duplicates', () => {
    const yaml = [
      'routes:',
      '  - match: {platform: slack, guild: G1}',
      '  - match: {platform: telegram, chat: 5}',
      '    workspace_policy: fixed',
      '  - match: {platform: telegram, chat: "5"}',
      '  - name: ops',
      '    match: {platform: slack, channel: C1}',
      '    workspace_policy: temp',
      '    workspace_path: /x',
      '  - name: ops',
      '    match: {platform: slack, channel: C2}',
      '    workspace_policy: per_channel',
      '    workspace_path: rel/dir',
      '  - name: default',
      '    match: {platform: web}',
    ].join('\n');
    const e = errs(yaml);
    expect(e.map((x) => x.path)).toEqual([
      'routes[0].match.guild',
      'routes[1].workspace_policy',
      'routes[2].match',
      'routes[3].workspace_path',
      'routes[4].workspace_path',
      'routes[4].name',
      'routes[5].name',
    ]);
    expect(e[0].expected).toBe('a scope key valid for slack (workspace, channel)');
    expect(e[0].line).toBe(2);
  });

  it('requires webhook settings in Telegram webhook mode', () => {
    const e = errs('telegram:\n  mode: webhook\n');
    expect(e.map((x) => x.path)).toEqual(['telegram.webhook_url', 'telegram.webhook_secret']);
    expect(errs('telegram: {mode: webhook, webhook_url: "https://x/y", webhook_secret: "bad secret"}\n')[0].path).toBe('telegram.webhook_secret');
    const c = ok('telegram: {mode: webhook, webhook_url: "https://bot.example/tg", webhook_secret: abc_DEF-1}\n');
    expect(c.telegram).toMatchObject({ mode: 'webhook', webhook_url: 'https://bot.example/tg', webhook_secret: 'abc_DEF-1' });
  });
});

describe('routes', () => {
  it('inherit what they leave out from default_route', () => {
    const c = ok(
      [
        'default_route:',
        '  project: team',
        '  approval_mode: always-ask',
        '  workspace_policy: fixed',
        '  workspace_path: ~/work',
        '  approvers: [slack:U1]',
        'routes:',
        '  - match: {platform: slack, workspace: T1, channel: C1}',
        '    agent: helper',
        '  - match: {platform: telegram, chat: -1001234567890}',
        '    workspace_policy: temp',
        '    access: {users: ["telegram:42"]}',
      ].join('\n'),
    );
    expect(c.default_route).toMatchObject({ project: 'team', workspace_path: '/home/op/work' });
    expect(c.routes[0]).toEqual({
      name: 'slack:T1:C1', match: { platform: 'slack', workspace: 'T1', channel: 'C1' }, project: 'team', agent: 'helper',
      approval_mode: 'always-ask', workspace_policy: 'fixed', workspace_path: '/home/op/work', approvers: ['slack:U1'],
      access: { users: [], roles: [], channels: [] }, tools: { network: true },
    });
    expect(c.routes[1]).toMatchObject({ name: 'telegram:-1001234567890', workspace_policy: 'temp', access: { users: ['telegram:42'], roles: [], channels: [] } });
    expect(c.routes[1].workspace_path).toBeUndefined();
  });

  it('take schedule_approval_mode only from the operator, inherited like any route key and absent by default', () => {
    const c = ok(
      [
        'default_route:',
        '  schedule_approval_mode: deny-all',
        'routes:',
        '  - match: {platform: telegram, chat: "42"}',
        '    schedule_approval_mode: allow-all',
        '  - match: {platform: telegram, chat: "43"}',
      ].join('\n'),
    );
    expect(c.default_route.schedule_approval_mode).toBe('deny-all');
    expect(c.routes.map((r) => r.schedule_approval_mode)).toEqual(['allow-all', 'deny-all']);
    expect(ok('routes: []\n').default_route).not.toHaveProperty('schedule_approval_mode');
    expect(errs('default_route:\n  schedule_approval_mode: yolo\n')[0].message).toMatch(/default_route\.schedule_approval_mode: expected one of allow-all\|deny-all\|read-only\|always-ask, found "yolo"/);
  });
});

describe('redactConfig', () => {
  it('replaces every secret and keeps the rest', () => {
    const c = ok('telegram: {mode: webhook, webhook_url: "https://b/t", webhook_secret: secret-7-hook}\n', {
      TELEGRAM_BOT_TOKEN: 'secret-1-tg', SLACK_BOT_TOKEN: 'secret-2-slack', SLACK_SIGNING_SECRET: 'secret-3-sign', PENGUIN_ADMIN_TOKEN: 'secret-4-admin-token-0123456789', OPENAI_API_KEY: 'secret-5-model', DISCORD_BOT_TOKEN: 'secret-6-discord',
    });
    const r = redactConfig(c);
    const text = JSON.stringify(r);
    // Values no random temp-dir name (6 alphanumerics) can contain: the text holds the config file's path too.
    for (const n of [1, 2, 3, 4, 5, 6, 7]) expect(text).not.toContain(`secret-${n}-`);
    expect(redactConfig(ok(undefined, { PENGUIN_DATABASE_URL: 'postgres://gw:S8@db/penguin' })).database_url).toBe('postgres://gw:***@db/penguin');
    expect(r.telegram.bot_token).toBe('(set)');
    expect(r.slack.app_token).toBeUndefined();
    expect(r.telegram.webhook_url).toBe('https://b/t');
    expect(c.telegram.bot_token).toBe('secret-1-tg');
  });
});
