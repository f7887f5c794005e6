/**
 * docker-compose.yml: valid for Debian's docker-compose (`config -q`, with .env made from .env.example,
 * the way the README says), skipped with a note where that is not installed (CI installs it); and, read as
 * YAML, the deployment the README promises: the gateway with its /data volume, env_file .env, a restart
 * policy, a health check on /healthz, ports published on 127.0.0.1 only, a stop grace period longer than
 * the gateway's shutdown grace, the `local-model` profile's OpenAI-compatible server wired through
 * OPENAI_BASE_URL by the local-model block of .env.example, and the `cluster` profile: PostgreSQL (official
 * image, volume, health check) and a second gateway on the same data volume, .env and polling Telegram.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadGatewayConfig } from '../../src/gateway/config';

const ROOT = join(__dirname, '../..');

interface Service {
  build?: unknown;
  image?: string;
  profiles?: string[];
  env_file?: string | string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  restart?: string;
  init?: boolean;
  stop_grace_period?: string;
  healthcheck?: { test: string[] };
  command?: string[];
  depends_on?: Record<string, { condition: string }>;
}
// The gateway services share their settings through YAML merge keys (`<<: *gateway`), as compose reads them.
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const gateway = compose.services.gateway;

function seconds(d: string): number {
  const m = /^(\d+)(ms|s|m)$/.exec(d);
  if (!m) throw new Error(`unreadable duration ${d}`);
  return Number(m[1]) * { ms: 0.001, s: 1, m: 60 }[m[2] as 'ms' | 's' | 'm'];
}

const composeBin = spawnSync('docker-compose', ['version'], { encoding: 'utf8' }).status === 0;
if (!composeBin && process.env.CI) throw new Error('docker-compose is missing: .ci/run installs the Debian package docker-compose');
if (!composeBin) console.warn('docker-compose config check skipped: docker-compose is not installed (apt-get install docker-compose); the YAML checks still run');

(composeBin ? it : it.skip)('passes docker-compose config, with and without the local-model and cluster profiles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pg-compose-'));
  try {
    copyFileSync(join(ROOT, 'docker-compose.yml'), join(dir, 'docker-compose.yml'));
    copyFileSync(join(ROOT, '.env.example'), join(dir, '.env'));
    for (const args of [['config', '-q'], ['--profile', 'local-model', 'config', '-q'], ['--profile', 'cluster', 'config', '-q'], ['--profile', 'cluster', '--profile', 'local-model', 'config', '-q']]) {
      const r = spawnSync('docker-compose', ['-f', 'docker-compose.yml', ...args], { cwd: dir, encoding: 'utf8' });
      expect({ args, status: r.status, stderr: r.stderr.trim() }).toEqual({ args, status: 0, stderr: '' });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('runs the gateway from this repository with its data on a named volume at /data', () => {
  expect(gateway.build).toBe('.');
  expect(gateway.profiles).toBeUndefined();
  expect(gateway.environment).toMatchObject({ PENGUIN_HOME: '/data', PENGUIN_GATEWAY_HOST: '0.0.0.0' });
  const data = gateway.volumes?.find((v) => v.split(':')[1] === '/data');
  expect(data).toBeDefined();
  expect(Object.keys(compose.volumes)).toContain(data!.split(':')[0]);
  expect([gateway.env_file].flat()).toContain('.env');
  expect(gateway.restart).toBe('unless-stopped');
});

it('publishes every port on 127.0.0.1 only', () => {
  const ports = Object.values(compose.services).flatMap((s) => s.ports ?? []);
  expect(ports).toContain('127.0.0.1:7370:7370');
  for (const p of ports) expect(p).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
});

it('checks health on /healthz and stops more slowly than the gateway shuts down', () => {
  expect(gateway.healthcheck?.test[0]).toBe('CMD');
  expect(gateway.healthcheck?.test.join(' ')).toContain('http://127.0.0.1:7370/healthz');
  const loaded = loadGatewayConfig({ env: {}, cwd: ROOT });
  if (!loaded.ok) throw new Error('config/gateway.yaml does not load');
  // config/gateway.yaml is in the image; its grace time is the one the container uses.
  expect(seconds(gateway.stop_grace_period ?? '10s')).toBeGreaterThan(loaded.config.shutdown.grace_ms / 1000 + 5);
  expect(gateway.init).toBe(true);
});

it('offers the local-model profile: an OpenAI-compatible server that .env.example wires in through OPENAI_BASE_URL', () => {
  const local = Object.entries(compose.services).filter(([, s]) => s.profiles?.includes('local-model'));
  const server = local.find(([, s]) => s.image?.startsWith('ollama/ollama') && s.healthcheck);
  expect(server).toBeDefined();
  const block = readFileSync(join(ROOT, '.env.example'), 'utf8').split(/^# -+ Local model/m)[1].split(/^# -+ /m)[0];
  const values = Object.fromEntries([...block.matchAll(/^# ([A-Z_]+)=(.*)$/gm)].map((m) => [m[1], m[2]]));
  expect(values).toEqual({ COMPOSE_PROFILES: 'local-model', OPENAI_BASE_URL: `http://${server![0]}:11434/v1`, PENGUIN_MODEL: expect.stringMatching(/^\S+$/) });
  // The model is pulled once the server is healthy: PENGUIN_MODEL, the id the gateway asks for.
  const pull = local.find(([, s]) => s.command?.[0] === 'pull');
  expect(pull?.[1].command?.[1]).toMatch(/^\$\{PENGUIN_MODEL(:-\S+)?\}$/);
});

describe('the cluster profile', () => {
  const inProfile = Object.entries(compose.services).filter(([, s]) => s.profiles?.includes('cluster'));
  const gateways = Object.entries(compose.services).filter(([, s]) => s.image === gateway.image);
  const dataVolume = (s: Service) => s.volumes?.find((v) => v.split(':')[1] === '/data')?.split(':')[0];
  const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
  const block = example.split(/^# -+ Two instances/m)[1].split(/^# -+ /m)[0];

  it('adds PostgreSQL from the official image, with its data on a named volume and a pg_isready health check', () => {
    const [name, pg] = inProfile.find(([, s]) => s.image?.startsWith('postgres:'))!;
    expect(name).toBe('postgres');
    expect(pg.image).toMatch(/^postgres:\d+$/);
    const data = pg.volumes?.find((v) => v.split(':')[1] === '/var/lib/postgresql/data');
    expect(Object.keys(compose.volumes)).toContain(data?.split(':')[0]);
    expect(pg.healthcheck?.test.join(' ')).toMatch(/pg_isready -U (\S+) -d (\S+)/);
    expect(pg.environment).toMatchObject({ POSTGRES_USER: 'penguin', POSTGRES_DB: 'penguin', POSTGRES_PASSWORD: expect.stringMatching(/^\$\{POSTGRES_PASSWORD(:-)?\}$/) });
    // the database is for the gateways only, not for this machine's network
    expect(pg.ports).toBeUndefined();
  });

  it('runs two gateway instances on one data volume and one .env, each with its own id and port', () => {
    expect(gateways.map(([n]) => n)).toEqual(['gateway', 'gateway-2']);
    expect(compose.services['gateway-2'].profiles).toEqual(['cluster']);
    for (const [, s] of gateways) {
      expect(dataVolume(s)).toBe(dataVolume(gateway));
      expect([s.env_file].flat()).toContain('.env');
      expect(s.environment).toMatchObject({ PENGUIN_HOME: '/data', PENGUIN_GATEWAY_HOST: '0.0.0.0', PENGUIN_GATEWAY_PORT: '7370' });
      expect(s).toMatchObject({ restart: 'unless-stopped', init: true, stop_grace_period: gateway.stop_grace_period, healthcheck: gateway.healthcheck });
    }
    const ids = gateways.map(([, s]) => s.environment?.PENGUIN_INSTANCE_ID);
    expect(new Set(ids).size).toBe(2);
    expect(new Set(gateways.map(([, s]) => s.ports?.[0])).size).toBe(2);
    expect(compose.services['gateway-2'].depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
  });

  it('is switched on by the .env.example block that names the compose database in PENGUIN_DATABASE_URL', () => {
    expect(block).toMatch(/^# COMPOSE_PROFILES=cluster$/m);
    expect(block).toMatch(/^POSTGRES_PASSWORD=$/m);
    const pg = compose.services.postgres.environment!;
    expect(block).toContain(`postgres://${pg.POSTGRES_USER}:<that password>@postgres:5432/${pg.POSTGRES_DB}`);
  });

  it('leaves Telegram in polling mode, which one elected instance runs (webhooks would need a load balancer)', () => {
    const loaded = loadGatewayConfig({ env: {}, cwd: ROOT });
    if (!loaded.ok) throw new Error('config/gateway.yaml does not load');
    expect(loaded.config.telegram.mode).toBe('polling');
    for (const [, s] of gateways) expect(Object.keys(s.environment ?? {}).filter((k) => k.startsWith('TELEGRAM_'))).toEqual([]);
  });

  it('gives both instances the Discord token from .env, since they share the bot\'s shards out', () => {
    for (const [, s] of gateways) expect(Object.keys(s.environment ?? {}).filter((k) => k.startsWith('DISCORD_'))).toEqual([]);
  });
});
