/**
 * The safety settings of the config (gateway.md §6, §8): group policies per platform and from
 * PENGUIN_GROUP_POLICY (a platform's own value wins), a weak PENGUIN_ADMIN_TOKEN refused before anything
 * starts, the tools section (sandbox mode, network default per route, pass-through names that may never
 * be the gateway's own credentials).
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatConfigErrors, loadGatewayConfig, type GatewayConfig } from '../../../src/gateway/config';

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'pg-config-sec-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

function load(yaml?: string, env: Record<string, string> = {}) {
  if (yaml !== undefined) {
    mkdirSync(join(cwd, 'config'), { recursive: true });
    writeFileSync(join(cwd, 'config', 'gateway.yaml'), yaml);
  }
  return loadGatewayConfig({ env: { HOME: '/home/op', ...env }, cwd });
}
function ok(yaml?: string, env?: Record<string, string>): GatewayConfig {
  const r = load(yaml, env);
  if (!r.ok) throw new Error(formatConfigErrors(r.errors));
  return r.config;
}

describe('group policy', () => {
  it('defaults to pairing for Telegram groups and Discord guilds, open for the Slack workspace', () => {
    const c = ok();
    expect([c.telegram.group_policy, c.discord.group_policy, c.slack.group_policy]).toEqual(['pairing', 'pairing', 'open']);
  });

  it('PENGUIN_GROUP_POLICY sets every platform that sets none; a platform value wins', () => {
    const c = ok('discord: {group_policy: open}\n', { PENGUIN_GROUP_POLICY: 'allowlist' });
    expect([c.telegram.group_policy, c.discord.group_policy, c.slack.group_policy]).toEqual(['allowlist', 'open', 'allowlist']);
  });

  it('rejects an unknown value, naming the variable', () => {
    const r = load(undefined, { PENGUIN_GROUP_POLICY: 'everyone' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(formatConfigErrors(r.errors)).toContain('PENGUIN_GROUP_POLICY: expected one of pairing|allowlist|open|disabled, found "everyone"');
  });
});

describe('admin token strength', () => {
  it('refuses a PENGUIN_ADMIN_TOKEN shorter than 24 characters, without echoing it', () => {
    const r = load(undefined, { PENGUIN_ADMIN_TOKEN: 'hunter2-short' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const text = formatConfigErrors(r.errors);
    expect(text).toContain('PENGUIN_ADMIN_TOKEN: expected a token of at least 24 characters');
    expect(text).toContain('found 13 characters');
    expect(text).not.toContain('hunter2');
  });

  it('accepts 24 characters', () => {
    expect(ok(undefined, { PENGUIN_ADMIN_TOKEN: 'x'.repeat(24) }).admin_token).toBe('x'.repeat(24));
  });
});

describe('tools', () => {
  it('defaults: sandbox auto, network on for every route, nothing passed through', () => {
    const c = ok('routes:\n  - {match: {platform: telegram, chat: "-100"}}\n');
    expect(c.tools).toEqual({ sandbox: 'auto', network: true, env_passthrough: [], readonly_paths: [] });
    expect(c.default_route.tools).toEqual({ network: true });
    expect(c.routes[0].tools).toEqual({ network: true });
  });

  it('a route may turn the network off; others inherit the default', () => {
    const c = ok('tools: {network: false, sandbox: bubblewrap}\nroutes:\n  - {match: {platform: telegram, chat: "-1"}, tools: {network: true}}\n  - {match: {platform: telegram, chat: "-2"}}\n');
    expect(c.tools.sandbox).toBe('bubblewrap');
    expect(c.default_route.tools.network).toBe(false);
    expect(c.routes.map((r) => r.tools.network)).toEqual([true, false]);
  });

  it("refuses to pass the gateway's own credentials to tools", () => {
    const r = load('tools: {env_passthrough: [HTTPS_PROXY, OPENAI_API_KEY]}\n');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(formatConfigErrors(r.errors)).toMatch(/tools\.env_passthrough\[1\]: expected a variable that is not one of the gateway's own/);
  });
});
