/**
 * Where a docker engine answers, the image is built from this checkout and run with a fresh /data volume
 * until docker reports it healthy; /healthz answers 200 on the published loopback port, the process runs
 * as a non-root user with no compiler in the image, and `docker stop` (SIGTERM) ends it with exit 0 within
 * the stop timeout. Without an engine (`docker info` fails) the test is skipped and says so.
 */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');
const TAG = `penguin-gateway:test-${process.pid}`;
const engine = spawnSync('docker', ['info'], { encoding: 'utf8', timeout: 20_000 }).status === 0;
if (!engine) console.warn('docker image test skipped: no docker engine answers here (`docker info` failed)');

const docker = (...args: string[]) => spawnSync('docker', args, { encoding: 'utf8', timeout: 15 * 60_000 });

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

(engine ? it : it.skip)('builds the image and runs it to healthy', async () => {
  const built = docker('build', '-t', TAG, ROOT);
  expect({ status: built.status, err: built.status === 0 ? '' : built.stderr.slice(-4000) }).toEqual({ status: 0, err: '' });
  const port = await freePort();
  const name = `pg-image-test-${process.pid}`;
  const run = docker('run', '-d', '--name', name, '-p', `127.0.0.1:${port}:7370`, TAG);
  expect(run.status).toBe(0);
  try {
    let health = '';
    for (let i = 0; i < 120 && health !== 'healthy'; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      health = docker('inspect', '--format', '{{.State.Health.Status}}', name).stdout.trim();
      if (health === 'unhealthy') break;
    }
    expect(health).toBe('healthy');
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect(docker('exec', name, 'id', '-u').stdout.trim()).not.toBe('0');
    expect(docker('exec', name, 'sh', '-c', 'ls node_modules/.bin').stdout).not.toMatch(/\b(tsc|esbuild|jest)\b/);
    expect(docker('stop', '--time', '30', name).status).toBe(0);
    expect(docker('inspect', '--format', '{{.State.ExitCode}}', name).stdout.trim()).toBe('0');
  } finally {
    docker('rm', '-f', name);
    docker('rmi', '-f', TAG);
  }
}, 20 * 60_000);
