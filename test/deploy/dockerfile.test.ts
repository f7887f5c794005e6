/**
 * The Dockerfile, linted by hadolint where it is installed (Debian has no package for it) and always
 * checked for what the deployment relies on: a multi-stage build on Node 20 slim whose build stage
 * compiles better-sqlite3 and drops the devDependencies after building; a final stage with only the built
 * gateway, its production node_modules and the files it reads at run time, a non-root user, /data as the
 * volume and PENGUIN_HOME, 0.0.0.0 inside the container, a HEALTHCHECK on /healthz and an exec-form CMD
 * so SIGTERM reaches node. `.dockerignore` keeps secrets, data and local builds out of the context.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');
const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

interface Instruction {
  op: string;
  args: string;
}
/** Instructions with continuation lines joined and comments dropped, split into stages at FROM. */
function stages(): Instruction[][] {
  const joined = text.split('\n').filter((l) => !/^\s*#/.test(l)).join('\n').replace(/\\\n/g, ' ');
  const out: Instruction[][] = [];
  let preamble: Instruction[] = [];
  for (const line of joined.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const [, op, args] = /^(\S+)\s+(.*)$/.exec(line)!;
    const ins = { op: op.toUpperCase(), args: args.replace(/\s+/g, ' ') };
    if (ins.op === 'FROM') out.push([ins]);
    else if (out.length === 0) preamble = [...preamble, ins];
    else out[out.length - 1].push(ins);
  }
  const arg = preamble.find((i) => i.op === 'ARG' && i.args.startsWith('NODE_IMAGE='));
  // FROM ${NODE_IMAGE} reads as the ARG's default.
  return out.map((s) => s.map((i) => (i.op === 'FROM' && arg ? { op: 'FROM', args: i.args.replace('${NODE_IMAGE}', arg.args.split('=')[1]) } : i)));
}
const all = stages();
const build = all[0];
const final = all[all.length - 1];
const runs = (s: Instruction[]) => s.filter((i) => i.op === 'RUN').map((i) => i.args).join(' && ');
const only = (s: Instruction[], op: string) => s.filter((i) => i.op === op);

const hadolint = spawnSync('hadolint', ['--version'], { encoding: 'utf8' }).status === 0;
if (!hadolint) console.warn('hadolint is not installed (Debian has no package for it): the Dockerfile gets the structural checks only');

(hadolint ? it : it.skip)('passes hadolint', () => {
  const r = spawnSync('hadolint', [join(ROOT, 'Dockerfile')], { encoding: 'utf8' });
  expect(r.stdout + r.stderr).toBe('');
  expect(r.status).toBe(0);
});

it('builds in one stage on Node 20 slim and runs in another', () => {
  expect(all.length).toBeGreaterThanOrEqual(2);
  for (const s of all) expect(s[0].args).toMatch(/^node:20-[a-z]+-slim\b/);
  expect(build[0].args).toMatch(/ AS build$/);
});

it('compiles better-sqlite3 and the TypeScript in the build stage, then drops the devDependencies', () => {
  const r = runs(build);
  expect(r).toMatch(/apt-get install -y --no-install-recommends .*build-essential/);
  expect(r).toMatch(/python3/);
  const ci = r.indexOf('npm ci');
  const compile = r.indexOf('npm run build');
  const prune = r.indexOf('npm prune --omit=dev');
  expect(ci).toBeGreaterThanOrEqual(0);
  expect(compile).toBeGreaterThan(ci);
  expect(prune).toBeGreaterThan(compile);
});

it('ships only the built gateway, production node_modules and its run-time files, as a non-root user', () => {
  expect(runs(final)).not.toMatch(/npm (ci|install)(?! .*--omit=dev)/);
  const copies = only(final, 'COPY').map((i) => i.args);
  expect(copies).toEqual(expect.arrayContaining([
    '--from=build /app/node_modules ./node_modules',
    '--from=build /app/dist/src ./dist/src',
    '--from=build /app/dist/dashboard ./dist/dashboard',
    '--from=build /app/package.json ./package.json',
    'config ./config',
    'skills ./skills',
  ]));
  const users = only(final, 'USER').map((i) => i.args);
  expect(users.length).toBeGreaterThan(0);
  expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
  expect(only(final, 'WORKDIR').at(-1)?.args).toBe('/app');
});

it('keeps data on /data, listens on every interface inside the container, and checks /healthz', () => {
  const env = only(final, 'ENV').map((i) => i.args).join(' ');
  expect(env).toMatch(/\bPENGUIN_HOME=\/data\b/);
  expect(env).toMatch(/\bPENGUIN_GATEWAY_HOST=0\.0\.0\.0\b/);
  expect(only(final, 'VOLUME').map((i) => i.args)).toContain('["/data"]');
  expect(only(final, 'EXPOSE').map((i) => i.args)).toContain('7370');
  const health = only(final, 'HEALTHCHECK').map((i) => i.args);
  expect(health).toHaveLength(1);
  expect(health[0]).toMatch(/CMD \["node", "-e", ".*\/healthz/);
});

it('starts node itself in exec form, so SIGTERM reaches the gateway', () => {
  const cmd = only(final, 'CMD');
  expect(cmd).toHaveLength(1);
  const argv = JSON.parse(cmd[0].args) as string[];
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  expect(argv).toEqual(['node', pkg.bin['penguin-gateway'], 'start']);
  expect(only(final, 'ENTRYPOINT')).toEqual([]);
});

it('keeps secrets, data and local builds out of the build context, and nothing the build copies', () => {
  const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  expect(ignored).toEqual(expect.arrayContaining(['.git', 'node_modules', 'dist', '.env', 'data', '.penguin', '*.db']));
  const fromContext = all.flatMap((s) => only(s, 'COPY')).filter((i) => !i.args.startsWith('--from=')).flatMap((i) => i.args.split(' ').slice(0, -1));
  expect(fromContext).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'src', 'config', 'skills']));
  for (const f of fromContext) expect(ignored).not.toContain(f);
});
