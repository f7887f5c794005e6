/**
 * config/gateway.yaml, the documented example: it validates, every value it shows equals the built-in
 * default, and the commented-out example routes validate too once uncommented.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { formatConfigErrors, loadGatewayConfig } from '../../../src/gateway/config';

const EXAMPLE = resolve(__dirname, '../../../config/gateway.yaml');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pg-example-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('config/gateway.yaml', () => {
  it('validates and states exactly the defaults', () => {
    copyFileSync(EXAMPLE, join(dir, 'gateway.yaml'));
    const env = { HOME: '/home/op' };
    const withFile = loadGatewayConfig({ argv: ['--config', 'gateway.yaml'], env, cwd: dir });
    if (!withFile.ok) throw new Error(formatConfigErrors(withFile.errors));
    const without = loadGatewayConfig({ argv: [], env, cwd: dir });
    if (!without.ok) throw new Error(formatConfigErrors(without.errors));
    const { config_file, ...rest } = withFile.config;
    expect(config_file).toBe(join(dir, 'gateway.yaml'));
    expect(rest).toEqual(without.config);
  });

  it('has example routes that validate when uncommented', () => {
    const text = readFileSync(EXAMPLE, 'utf8');
    const lines = text.split('\n');
    const start = lines.indexOf('# routes:');
    expect(start).toBeGreaterThan(0);
    const block = lines.slice(start).filter((l) => l.startsWith('#')).map((l) => l.replace(/^# ?/, ''));
    writeFileSync(join(dir, 'routes.yaml'), block.join('\n') + '\n');
    const r = loadGatewayConfig({ argv: ['--config', 'routes.yaml'], env: { HOME: '/home/op' }, cwd: dir });
    if (!r.ok) throw new Error(formatConfigErrors(r.errors));
    expect(r.config.routes.map((x) => x.name)).toEqual(['eng-oncall', 'discord:1123456789012345678', 'telegram:-1001234567890']);
    expect(r.config.routes[0]).toMatchObject({ agent: 'oncall', approval_mode: 'always-ask', workspace_policy: 'fixed', workspace_path: '/srv/penguin/workspaces/oncall' });
  });
});
