/**
 * doctor against fake platform and model servers on 127.0.0.1 (Telegram getMe, Slack auth.test, Discord
 * users/@me, OpenAI-compatible /models), each answering with the real services' shapes: valid tokens
 * pass, rejected ones fail with a fix, an unreachable root or one answering like a broken proxy fails,
 * unconfigured platforms are reported without failing; the data root must be writable with room to grow
 * and the database readable; secrets never appear in the output and doctor creates nothing. Every test
 * starts with a working model (the model check itself: doctor-model.test.ts).
 */
import { accessSync, chmodSync, constants, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { checkSpace, SPACE_FAIL_BYTES, SPACE_WARN_BYTES } from '../../../src/gateway/cli/doctor/local';
import { MIGRATIONS, openSqliteStore } from '../../../src/gateway/store';
import { cliEnv, type CliEnv } from './helpers';

const GOOD = { telegram: '123456:GOOD-telegram-token', slack: 'xoxb-good-slack-token', discord: 'GOOD.discord.token', openai: 'sk-good-openai-key' };
const BAD = { telegram: '123456:BAD-telegram-token', slack: 'xoxb-bad-slack-token', discord: 'BAD.discord.token', openai: 'sk-bad-openai-key' };
const SECRETS = [...Object.values(GOOD), ...Object.values(BAD), 'signing-secret-xyz'];

interface Seen {
  method: string;
  url: string;
  authorization?: string;
}

class FakeApis {
  server!: Server;
  seen: Seen[] = [];

  async start(): Promise<string> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((r) => {
      this.server.close(() => r());
      this.server.closeAllConnections();
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse) {
    const auth = req.headers.authorization;
    const url = req.url ?? '';
    this.seen.push({ method: req.method ?? '', url, ...(auth ? { authorization: auth } : {}) });
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    req.resume();
    req.on('end', () => {
      // A proxy in front of every API that has lost its upstream.
      if (url.startsWith('/proxy-down/')) return json(502, { ok: false, error: 'bad_gateway', description: 'Bad Gateway', message: 'Bad Gateway' });
      if (req.method === 'GET' && url === `/tg/bot${GOOD.telegram}/getMe`) return json(200, { ok: true, result: { id: 123456, is_bot: true, first_name: 'Penguin', username: 'penguin_bot' } });
      if (req.method === 'GET' && /^\/tg\/bot[^/]+\/getMe$/.test(url)) return json(401, { ok: false, error_code: 401, description: 'Unauthorized' });
      if (req.method === 'POST' && url === '/slack/api/auth.test') {
        if (auth === `Bearer ${GOOD.slack}`) return json(200, { ok: true, url: 'https://acme.slack.com/', team: 'Acme', user: 'penguin', team_id: 'T0ACME', user_id: 'U0BOT', bot_id: 'B0BOT' });
        return json(200, { ok: false, error: 'invalid_auth' });
      }
      if (req.method === 'GET' && url === '/discord/api/v10/users/@me') {
        if (auth === `Bot ${GOOD.discord}`) return json(200, { id: '987654321098765432', username: 'Penguin', bot: true });
        return json(401, { message: '401: Unauthorized', code: 0 });
      }
      if (req.method === 'GET' && url === '/v1/models') {
        if (auth === `Bearer ${GOOD.openai}`) return json(200, { object: 'list', data: [{ id: 'gpt-test', object: 'model' }, { id: 'gpt-mini', object: 'model' }] });
        return json(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
      }
      json(404, { error: 'no route' });
    });
  }
}

let apis: FakeApis;
let root: string;
let c: CliEnv;
beforeEach(async () => {
  apis = new FakeApis();
  root = await apis.start();
  c = cliEnv();
  Object.assign(c.env, { OPENAI_API_KEY: GOOD.openai, OPENAI_BASE_URL: `${root}/v1`, PENGUIN_MODEL: 'gpt-test' });
});
afterEach(async () => {
  c.cleanup();
  await apis.stop();
});

function configure(tokens: typeof GOOD, base = root, model = 'gpt-test') {
  Object.assign(c.env, {
    TELEGRAM_BOT_TOKEN: tokens.telegram,
    TELEGRAM_API_ROOT: `${base}/tg`,
    SLACK_BOT_TOKEN: tokens.slack,
    SLACK_SIGNING_SECRET: 'signing-secret-xyz',
    SLACK_API_URL: `${base}/slack/api/`,
    DISCORD_BOT_TOKEN: tokens.discord,
    DISCORD_API_URL: `${base}/discord/api`,
    OPENAI_API_KEY: tokens.openai,
    OPENAI_BASE_URL: `${base}/v1`,
    PENGUIN_MODEL: model,
  });
}

/** The output line of one check. */
function lineOf(out: string, name: string): string {
  const l = out.split('\n').find((x) => new RegExp(`^. ${name} `).test(x));
  if (!l) throw new Error(`no "${name}" line in:\n${out}`);
  return l;
}
function expectNoSecrets(out: string) {
  for (const s of SECRETS) expect(out).not.toContain(s);
}

async function unusedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

it('passes with valid tokens, calling each API the way the platform expects', async () => {
  configure(GOOD, root, 'gpt-test');
  const r = await c.run(['doctor']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(lineOf(r.stdout, 'telegram')).toBe(`✓ telegram     bot @penguin_bot (id 123456) via ${root}/tg, polling mode`);
  expect(lineOf(r.stdout, 'slack')).toBe(`✓ slack        bot penguin in workspace Acme (T0ACME) via ${root}/slack/api/, HTTP events at POST /slack/events`);
  expect(lineOf(r.stdout, 'discord')).toBe(`✓ discord      bot Penguin (id 987654321098765432) via ${root}/discord/api`);
  expect(lineOf(r.stdout, 'model')).toBe(`✓ model        openai/gpt-test at ${root}/v1 accepted the key; /models lists gpt-test (2 models) (default_project does not exist yet: start creates it with this model)`);
  expect(lineOf(r.stdout, 'config')).toMatch(/^✓ config +no config file/);
  expect(lineOf(r.stdout, 'data root')).toBe(`✓ data root    ${c.home} does not exist yet; start creates it`);
  expect(lineOf(r.stdout, 'database')).toMatch(/^✓ database .* does not exist yet; start creates it/);
  expect(lineOf(r.stdout, 'admin token')).toBe('✓ admin token  none yet: start generates one and prints it once');
  expect(lineOf(r.stdout, 'listen')).toBe('✓ listen       127.0.0.1:7370 (this machine only)');
  expect(r.stdout).toMatch(/\nAll configured checks passed\.\n$/);
  expectNoSecrets(r.stdout);

  expect(apis.seen).toEqual(
    expect.arrayContaining([
      { method: 'GET', url: `/tg/bot${GOOD.telegram}/getMe` },
      { method: 'POST', url: '/slack/api/auth.test', authorization: `Bearer ${GOOD.slack}` },
      { method: 'GET', url: '/discord/api/v10/users/@me', authorization: `Bot ${GOOD.discord}` },
      { method: 'GET', url: '/v1/models', authorization: `Bearer ${GOOD.openai}` },
    ]),
  );
  // Doctor only reads: no data root, no database.
  expect(existsSync(c.home)).toBe(false);
});

it('fails on rejected tokens and keys, saying what to fix, without printing them', async () => {
  configure(BAD);
  const r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  expect(lineOf(r.stdout, 'telegram')).toBe(`✗ telegram     ${root}/tg rejected the bot token (HTTP 401: Unauthorized)`);
  expect(lineOf(r.stdout, 'slack')).toBe(`✗ slack        ${root}/slack/api/ rejected the bot token (invalid_auth)`);
  expect(lineOf(r.stdout, 'discord')).toBe(`✗ discord      ${root}/discord/api rejected the bot token (HTTP 401: 401: Unauthorized)`);
  expect(lineOf(r.stdout, 'model')).toBe(`✗ model        ${root}/v1 rejected the API key for openai/gpt-test (HTTP 401: Incorrect API key provided) (default_project does not exist yet: start creates it with this model)`);
  expect(r.stdout).toContain('→ set TELEGRAM_BOT_TOKEN to the token @BotFather gave you');
  expect(r.stdout).toContain('→ set SLACK_BOT_TOKEN to the Bot User OAuth Token');
  expect(r.stdout).toContain('→ set DISCORD_BOT_TOKEN to the token from the Developer Portal');
  expect(r.stdout).toContain(`→ set OPENAI_API_KEY to a valid key for ${root}/v1`);
  expect(r.stdout).toMatch(/\n4 checks failed\.\n$/);
  expectNoSecrets(r.stdout);
});

it('fails on unreachable API roots as network problems', async () => {
  const dead = `http://127.0.0.1:${await unusedPort()}`;
  configure(GOOD, dead);
  const r = await c.run(['doctor', '--timeout', '5000']);
  expect(r.code).toBe(1);
  expect(lineOf(r.stdout, 'telegram')).toBe(`✗ telegram     cannot reach ${dead}/tg: ECONNREFUSED`);
  expect(lineOf(r.stdout, 'slack')).toBe(`✗ slack        cannot reach ${dead}/slack/api/: ECONNREFUSED`);
  expect(lineOf(r.stdout, 'discord')).toBe(`✗ discord      cannot reach ${dead}/discord/api: ECONNREFUSED`);
  expect(lineOf(r.stdout, 'model')).toBe(`✗ model        cannot reach ${dead}/v1: ECONNREFUSED (default_project does not exist yet: start creates it with this model)`);
  expect(r.stdout).toContain('→ check OPENAI_BASE_URL and that the model server is running and reachable');
  expectNoSecrets(r.stdout);
});

it('fails on answers that are neither a success nor a rejected token, and only warns for the model provider', async () => {
  configure(GOOD, `${root}/proxy-down`);
  const r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  expect(lineOf(r.stdout, 'telegram')).toBe(`✗ telegram     unexpected answer from ${root}/proxy-down/tg getMe (HTTP 502: Bad Gateway)`);
  expect(lineOf(r.stdout, 'slack')).toBe(`✗ slack        unexpected answer from ${root}/proxy-down/slack/api/auth.test (HTTP 502: bad_gateway)`);
  expect(lineOf(r.stdout, 'discord')).toBe(`✗ discord      unexpected answer from ${root}/proxy-down/discord/api/v10/users/@me (HTTP 502: Bad Gateway)`);
  expect(lineOf(r.stdout, 'model')).toMatch(/^! model +.*could not answer a one-token request for openai\/gpt-test \(HTTP 502.*provider trouble/);
  expect(r.stdout).toContain('→ check TELEGRAM_API_ROOT and try again');
  expect(r.stdout).toContain('→ check SLACK_API_URL and try again');
  expect(r.stdout).toContain('→ check DISCORD_API_URL and try again');
  expect(r.stdout).toMatch(/\n3 checks failed\.\n$/);
  expectNoSecrets(r.stdout);
});

it('reports unconfigured platforms without failing', async () => {
  mkdirSync(join(c.dir, 'config'));
  writeFileSync(join(c.dir, 'config', 'gateway.yaml'), 'discord:\n  enabled: false\n');
  const r = await c.run(['doctor']);
  expect(r.code).toBe(0);
  expect(lineOf(r.stdout, 'config')).toBe(`✓ config       ${join(c.dir, 'config', 'gateway.yaml')} is valid`);
  expect(lineOf(r.stdout, 'telegram')).toBe('– telegram     not configured (set TELEGRAM_BOT_TOKEN to enable it)');
  expect(lineOf(r.stdout, 'slack')).toMatch(/^– slack +not configured \(set SLACK_BOT_TOKEN/);
  expect(lineOf(r.stdout, 'discord')).toBe('– discord      disabled in the config (discord.enabled: false)');
  expect(r.stdout).toMatch(/\nAll configured checks passed \(3 not configured\)\.\n$/);
  expect(apis.seen).toEqual([{ method: 'GET', url: '/v1/models', authorization: `Bearer ${GOOD.openai}` }]);
});

it('checks an existing database and data root', async () => {
  const s = openSqliteStore(join(c.home, 'gateway.db'));
  await s.addAdminTokenHash('ab'.repeat(32));
  await s.close();
  let r = await c.run(['doctor']);
  expect(r.code).toBe(0);
  expect(lineOf(r.stdout, 'data root')).toBe(`✓ data root    ${c.home} is writable`);
  expect(lineOf(r.stdout, 'database')).toBe(`✓ database     ${join(c.home, 'gateway.db')} opens, schema version ${MIGRATIONS.length} (current)`);
  expect(lineOf(r.stdout, 'admin token')).toBe('✓ admin token  1 generated token stored (as hashes)');

  c.env.PENGUIN_ADMIN_TOKEN = 'operator-token-1234567890abc';
  const newer = openSqliteStore(join(c.home, 'gateway.db'));
  newer.db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(MIGRATIONS.length + 1, 'future', 0);
  await newer.close();
  r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  expect(lineOf(r.stdout, 'database')).toMatch(/^✗ database .* is at schema version \d+, newer than this release knows/);
  expect(lineOf(r.stdout, 'admin token')).toBe('✓ admin token  set by PENGUIN_ADMIN_TOKEN');
  expect(r.stdout).not.toContain('operator-token-1234567890abc');
});

it('warns that start rebuilds a database that is not a database, and fails when the data root is a file', async () => {
  mkdirSync(c.home);
  writeFileSync(join(c.home, 'gateway.db'), 'this is not sqlite, just text that is long enough to look like a header.......');
  let r = await c.run(['doctor']);
  expect(lineOf(r.stdout, 'database')).toMatch(/^! database +.*gateway\.db is not a readable database: file is not a database/);
  expect(r.stdout).toContain('start moves it aside (gateway.db.corrupt-<time>) and rebuilds the index');

  c.env.PENGUIN_HOME = join(c.dir, 'a-file');
  writeFileSync(c.env.PENGUIN_HOME, '');
  r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  expect(lineOf(r.stdout, 'data root')).toBe(`✗ data root    ${c.env.PENGUIN_HOME} exists but is not a directory`);
  expect(r.stdout).toContain('→ set PENGUIN_HOME');
});

it('fails when the database cannot be opened at all', async () => {
  mkdirSync(join(c.home, 'gateway.db'), { recursive: true });
  const r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  expect(lineOf(r.stdout, 'database')).toMatch(/^✗ database +cannot read .*gateway\.db: /);
  expect(r.stdout).toContain("→ check the file's permissions and owner: the gateway must read and write it");
});

/** A directory this process cannot write: a 0500 temp dir, or for root (who writes through modes) /proc/sys. */
function unwritableDir(): string | undefined {
  const candidates = process.getuid?.() === 0 ? ['/proc/sys'] : [join(c.dir, 'read-only')];
  if (process.getuid?.() !== 0) {
    mkdirSync(candidates[0]);
    chmodSync(candidates[0], 0o500);
  }
  return candidates.find((d) => {
    try {
      accessSync(d, constants.W_OK);
      return false;
    } catch {
      return true;
    }
  });
}

it('fails when the data root is not writable or cannot be created', async () => {
  const ro = unwritableDir();
  if (!ro) {
    console.warn('skipped: no directory here that this user cannot write');
    return;
  }
  c.env.PENGUIN_HOME = ro;
  let r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  expect(lineOf(r.stdout, 'data root')).toMatch(new RegExp(`^✗ data root +${ro} is not writable \\(E[A-Z]+\\)$`));
  expect(r.stdout).toContain('→ set PENGUIN_HOME (or home: in the config) to a directory the gateway user can write, or fix its permissions');

  c.env.PENGUIN_HOME = join(ro, 'penguin', 'data');
  r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  expect(lineOf(r.stdout, 'data root')).toBe(`✗ data root    ${c.env.PENGUIN_HOME} does not exist and cannot be created (${ro} is not writable)`);
  if (process.getuid?.() !== 0) chmodSync(ro, 0o700);
});

describe('disk space', () => {
  const MiB = 1024 ** 2;
  const seen: string[] = [];
  const free = (bytes: number) => (dir: string) => {
    seen.push(dir);
    return bytes;
  };

  it('passes with room, warns below 1 GiB, fails below 64 MiB, each with the fix', () => {
    expect(checkSpace('/data', free(SPACE_WARN_BYTES))).toEqual({ name: 'disk space', status: 'ok', detail: '1024 MiB free for /data' });
    expect(checkSpace('/data', free(SPACE_WARN_BYTES - 1))).toMatchObject({ status: 'warn', detail: '1023 MiB free for /data', fix: expect.stringContaining('or set PENGUIN_HOME to a larger one') });
    expect(checkSpace('/data', free(SPACE_FAIL_BYTES - MiB))).toMatchObject({ status: 'fail', detail: 'only 63 MiB free for /data: the database and traces cannot grow' });
  });

  it('measures where a data root that does not exist yet will be created', () => {
    seen.length = 0;
    checkSpace(join(c.dir, 'not', 'yet', 'data'), free(SPACE_WARN_BYTES));
    expect(seen).toEqual([c.dir]);
  });

  it('warns when the file system cannot tell', () => {
    const r = checkSpace(c.dir, () => {
      throw Object.assign(new Error('not supported'), { code: 'ENOSYS' });
    });
    expect(r).toEqual({ name: 'disk space', status: 'warn', detail: `cannot tell the free space of ${c.dir} (ENOSYS)` });
  });

  it('is a line of doctor, measured on the real file system', async () => {
    const r = await c.run(['doctor']);
    expect(lineOf(r.stdout, 'disk space')).toMatch(new RegExp(`^. disk space +(only )?\\d+ MiB free for ${c.home}`));
  });
});

it('warns when the listener is reachable from other machines', async () => {
  c.env.PENGUIN_GATEWAY_HOST = '0.0.0.0';
  const r = await c.run(['doctor']);
  expect(r.code).toBe(0);
  expect(lineOf(r.stdout, 'listen')).toBe('! listen       0.0.0.0:7370 is reachable from other machines: the admin API and dashboard are exposed there');
});

it('gives up on an API root that never answers after --timeout', async () => {
  const silent = createServer(() => undefined);
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  try {
    c.env.TELEGRAM_BOT_TOKEN = GOOD.telegram;
    c.env.TELEGRAM_API_ROOT = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const r = await c.run(['doctor', '--timeout', '100']);
    expect(r.code).toBe(1);
    expect(lineOf(r.stdout, 'telegram')).toBe(`✗ telegram     cannot reach ${c.env.TELEGRAM_API_ROOT}: no answer within 100 ms`);
  } finally {
    silent.closeAllConnections();
    await new Promise<void>((r) => silent.close(() => r()));
  }
});

it('reports the tool sandbox as start would resolve it: required but missing fails, auto without bwrap warns', async () => {
  const cfg = join(c.dir, 'gateway.yaml');
  writeFileSync(cfg, 'tools: {sandbox: bubblewrap}\n');
  c.env.PENGUIN_GATEWAY_CONFIG = cfg;
  c.env.PATH = join(c.dir, 'no-such-bin');
  let r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  expect(lineOf(r.stdout, 'sandbox')).toMatch(/^✗ sandbox +tools\.sandbox is bubblewrap, but bwrap .* is not installed: every shell command will be refused/);
  expect(r.stdout).toContain('→ install bubblewrap');

  writeFileSync(cfg, 'tools: {sandbox: auto}\n');
  r = await c.run(['doctor']);
  expect(lineOf(r.stdout, 'sandbox')).toMatch(/^! sandbox +no command sandbox: .*shell commands run on the host/);
});
