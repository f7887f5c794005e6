/**
 * MCP servers through the SDK: the real server-everything over stdio and an in-process server over
 * streamable HTTP and SSE on 127.0.0.1 — connect events, listing, naming, permissions, calls with text,
 * images and isError, aborts, timeouts, failures that are skipped, the env a stdio server gets, dispose.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { OmniMessage } from '../../../src/core/omnimessage/types';
import type { MCPServerConfig } from '../../../src/core/interfaces';
import { DEFAULT_BUILTIN_TOOLS } from '../../../src/core/environment/default-tools';
import { startFakeMcpServer, startSilentServer, TINY_PNG_BASE64, type FakeMcpServer } from '../../fakes/mcp-http-server';
import { call, collect, isAlive, makeEnv, removeTempDirs, waitFor } from './helpers';

const EVERYTHING = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const everything = (name = 'every', extra: Record<string, unknown> = {}): MCPServerConfig => ({
  name,
  config: { command: process.execPath, args: [EVERYTHING, 'stdio'], ...extra },
});

const disposers: (() => Promise<void>)[] = [];
function setup(o: Parameters<typeof makeEnv>[0]) {
  const warnings: string[] = [];
  const made = makeEnv({ tools: [], warn: (m) => warnings.push(m), ...o });
  disposers.push(() => made.env.dispose());
  return { ...made, warnings };
}
afterEach(async () => {
  for (const d of disposers.splice(0)) await d();
});
afterAll(removeTempDirs);

function children(): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const payloads = (msgs: OmniMessage[]) => msgs.map((m) => m.payload as unknown as Record<string, unknown>);

describe('server-everything over stdio', () => {
  test('connect events, listing with names and permissions, then calls', async () => {
    const before = children();
    const { env } = setup({ mcpServers: [everything()] });
    const events = payloads(await collect(env.connect!()));
    expect(events[0]).toEqual({ type: 'mcp_connect_begin', servers: ['every'] });
    expect(events[1]).toMatchObject({ type: 'mcp_connect_end', status: 'completed', results: [{ server: 'every', transport: 'stdio', status: 'completed' }] });
    const result = (events[1].results as Record<string, unknown>[])[0];
    expect(typeof result.duration_ms).toBe('number');
    const tools = await env.listTools();
    expect(result.tools).toBe(tools.length);
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['mcp__every__echo', 'mcp__every__get-sum', 'mcp__every__get-tiny-image']));
    expect(tools.find((t) => t.name === 'mcp__every__echo')!.parameters).toMatchObject({ type: 'object', properties: { message: expect.any(Object) } });
    expect(env.toolPermission('mcp__every__echo')).toBe('r');
    expect(env.toolPermission('mcp__every__toggle-simulated-logging')).toBe('rw');
    expect(await collect(env.connect!())).toEqual([]);

    const echo = await call(env, 'mcp__every__echo', { message: 'hi there' });
    expect(echo.out).toMatchObject({ output: 'Echo: hi there', stop_reason: 'completed' });
    const sum = await call(env, 'mcp__every__get-sum', { a: 2, b: 3 });
    expect(sum.out.output).toBe('The sum of 2 and 3 is 5.');
    const img = await call(env, 'mcp__every__get-tiny-image', {});
    expect(img.out.stop_reason).toBe('completed');
    expect(img.out.images).toHaveLength(1);
    expect(img.out.images![0].startsWith('data:image/png;base64,iVBOR')).toBe(true);
    const bad = await call(env, 'mcp__every__get-sum', { a: 'x' });
    expect(bad.out.stop_reason).toBe('failed');
    expect(bad.out.output).toContain('Input validation error');

    const spawned = children().filter((p) => !before.includes(p));
    expect(spawned.length).toBeGreaterThan(0);
    await env.dispose();
    expect(await waitFor(() => spawned.every((p) => !isAlive(p)), 6000)).toBe(true);
  });

  test('a stdio server gets the sanitized env and its own env, never the vault', async () => {
    const { env } = setup({ mcpServers: [everything('every', { env: { SERVER_ONLY: 'visible' } })], vault: { VAULT_SECRET: 'hidden-value' } });
    const { out } = await call(env, 'mcp__every__get-env', {});
    expect(out.output).toContain('SERVER_ONLY');
    expect(out.output).toContain('NO_COLOR');
    expect(out.output).not.toContain('VAULT_SECRET');
    expect(out.output).not.toContain('hidden-value');
  });

  test('an abort cancels a running call', async () => {
    const { env } = setup({ mcpServers: [everything()] });
    await env.listTools();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const { out } = await call(env, 'mcp__every__trigger-long-running-operation', { duration: 30, steps: 3 }, { signal: ac.signal });
    expect(out).toMatchObject({ stop_reason: 'aborted' });
    expect(out.output).toContain('[interrupted: tool aborted by user]');
  });

  test('a server that fails to start is skipped with a failed result; the others work', async () => {
    const { env, warnings } = setup({
      mcpServers: [everything(), { name: 'broken', config: { command: process.execPath, args: ['-e', 'console.error("no config file"); process.exit(3)'] } }],
    });
    const events = payloads(await collect(env.connect!()));
    const end = events[1] as { status: string; results: Record<string, unknown>[] };
    expect(end.status).toBe('failed');
    expect(end.results.map((r) => [r.server, r.status])).toEqual([['every', 'completed'], ['broken', 'failed']]);
    expect(String(end.results[1].error)).toContain('no config file');
    expect(warnings.some((w) => w.includes('broken'))).toBe(true);
    expect((await env.listTools()).every((t) => t.name.startsWith('mcp__every__'))).toBe(true);
    expect((await call(env, 'mcp__broken__anything', {})).out.output).toBe('Unknown tool: mcp__broken__anything');
  });
});

describe('in-process server over HTTP and SSE', () => {
  let fake: FakeMcpServer;
  beforeAll(async () => {
    fake = await startFakeMcpServer(['ok_name', 'bad name!', 'x'.repeat(130)]);
  });
  afterAll(() => fake.close());

  test('http: list, text, image, isError, headers, invalid tool names skipped with warnings', async () => {
    const { env, warnings } = setup({ mcpServers: [{ name: 'web', config: { url: fake.url, headers: { 'x-api-key': 'k1' } } }] });
    const events = payloads(await collect(env.connect!()));
    expect(events[1]).toMatchObject({ status: 'completed', results: [{ server: 'web', transport: 'http', status: 'completed', tools: 7 }] });
    const names = (await env.listTools()).map((t) => t.name);
    expect(names).toEqual(['mcp__web__echo', 'mcp__web__fail', 'mcp__web__image', 'mcp__web__slow', 'mcp__web__ok_name']);
    expect(warnings.filter((w) => w.includes('skipped'))).toHaveLength(2);
    expect(fake.headersSeen.some((h) => h['x-api-key'] === 'k1')).toBe(true);
    expect(env.toolPermission('mcp__web__echo')).toBe('r');
    expect(env.toolPermission('mcp__web__fail')).toBe('rw');

    expect((await call(env, 'mcp__web__echo', { message: 'yo' })).out).toMatchObject({ output: 'echo: yo', stop_reason: 'completed' });
    const fail = await call(env, 'mcp__web__fail', {});
    expect(fail.out).toMatchObject({ output: 'something went wrong', stop_reason: 'failed' });
    const img = await call(env, 'mcp__web__image', {});
    expect(img.out).toMatchObject({ output: 'a pixel', images: [`data:image/png;base64,${TINY_PNG_BASE64}`], stop_reason: 'completed' });
  });

  test('sse transport and a fixed permission', async () => {
    const { env } = setup({ mcpServers: [{ name: 'old', config: { transport: 'sse', url: fake.sseUrl, permission: 'rw' } }] });
    const events = payloads(await collect(env.connect!()));
    expect(events[1]).toMatchObject({ status: 'completed', results: [{ server: 'old', transport: 'sse', status: 'completed' }] });
    expect(env.toolPermission('mcp__old__echo')).toBe('rw');
    expect((await call(env, 'mcp__old__echo', { message: 'sse' })).out.output).toBe('echo: sse');
  });

  test('a per-server timeoutMs fails a hanging call and cancels it on the server', async () => {
    const { env } = setup({ mcpServers: [{ name: 'web', config: { url: fake.url, timeoutMs: 200 } }] });
    const before = fake.slowCancelled();
    const { out } = await call(env, 'mcp__web__slow', {});
    expect(out).toMatchObject({ output: '[tool timeout: exceeded 200ms]', stop_reason: 'failed' });
    expect(await waitFor(() => fake.slowCancelled() > before)).toBe(true);
  });

  test('a per-server maxOutputLength caps the output', async () => {
    const { env } = setup({ mcpServers: [{ name: 'web', config: { url: fake.url, maxOutputLength: 5 } }] });
    const { out } = await call(env, 'mcp__web__echo', { message: 'long message' });
    expect(out.output.startsWith('echo:\n[output truncated: exceeded 5 chars]\n[output archived: ')).toBe(true);
  });

  test('names that collide after prefixing are skipped as duplicates (first server wins)', async () => {
    const twin = await startFakeMcpServer(['b__c', 'c']);
    try {
      const { env, warnings } = setup({ mcpServers: [{ name: 'a', config: { url: twin.url } }, { name: 'a__b', config: { url: twin.url } }] });
      const names = (await env.listTools()).map((t) => t.name);
      expect(names.filter((n) => n === 'mcp__a__b__c')).toHaveLength(1);
      expect(names).toContain('mcp__a__b__b__c');
      expect(warnings).toEqual(['MCP tool skipped (server a__b): duplicate tool name mcp__a__b__c']);
      expect((await call(env, 'mcp__a__b__c', {})).out.output).toBe('b__c');
    } finally {
      await twin.close();
    }
  });
});

describe('connection failures, timeouts and aborts', () => {
  test('invalid configs fail without connecting, with a reason', async () => {
    const { env } = setup({
      mcpServers: [
        { name: 'bad name', config: { command: 'x' } },
        { name: 'nothing', config: {} },
        { name: 'weird', config: { transport: 'carrier-pigeon', url: 'http://x' } },
        { name: 'nourl', config: { transport: 'sse' } },
        { name: 'dup', config: { url: 'http://127.0.0.1:1/mcp' } },
        { name: 'dup', config: { url: 'http://127.0.0.1:1/mcp' } },
      ],
    });
    const end = payloads(await collect(env.connect!()))[1] as { status: string; results: Record<string, unknown>[] };
    expect(end.status).toBe('failed');
    const byIndex = end.results.map((r) => `${r.server}:${r.status}:${String(r.error)}`);
    expect(byIndex[0]).toMatch(/^bad name:failed:invalid MCP server name/);
    expect(byIndex[1]).toMatch(/^nothing:failed:config needs `command`/);
    expect(byIndex[2]).toMatch(/^weird:failed:unknown transport/);
    expect(byIndex[3]).toMatch(/^nourl:failed:invalid sse config: url/);
    expect(byIndex[5]).toMatch(/^dup:failed:duplicate MCP server name dup/);
  });

  test('a server that never answers fails after connectTimeoutMs', async () => {
    const silent = await startSilentServer();
    try {
      const { env } = setup({ mcpServers: [{ name: 'mute', config: { url: silent.url, connectTimeoutMs: 300 } }] });
      const end = payloads(await collect(env.connect!()))[1] as { results: Record<string, unknown>[] };
      expect(end.results[0]).toMatchObject({ server: 'mute', status: 'failed', error: 'connect timed out after 300ms' });
      expect(await env.listTools()).toEqual([]);
    } finally {
      await silent.close();
    }
  });

  test('an aborted connect reports aborted, and a later call connects again', async () => {
    const fake = await startFakeMcpServer();
    const silent = await startSilentServer();
    try {
      const { env } = setup({ mcpServers: [{ name: 'web', config: { url: fake.url } }, { name: 'mute', config: { url: silent.url, connectTimeoutMs: 400 } }] });
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 200);
      const end = payloads(await collect(env.connect!(ac.signal)))[1] as { status: string; results: Record<string, unknown>[] };
      expect(end.status).toBe('aborted');
      expect(end.results.find((r) => r.server === 'mute')).toMatchObject({ status: 'aborted', error: 'aborted' });
      expect(env.toolPermission('mcp__web__echo')).toBeUndefined();
      // Nothing was frozen: the next caller connects again (and this time the silent server times out).
      expect((await env.listTools()).map((t) => t.name)).toContain('mcp__web__echo');
      const again = payloads(await collect(env.connect!()));
      expect(again[1]).toMatchObject({ status: 'failed', results: [{ server: 'web', status: 'completed' }, { server: 'mute', status: 'failed' }] });

      const pre = makeEnv({ tools: [], mcpServers: [{ name: 'web', config: { url: fake.url } }] });
      disposers.push(() => pre.env.dispose());
      const already = new AbortController();
      already.abort();
      expect(payloads(await collect(pre.env.connect!(already.signal)))[1]).toMatchObject({ status: 'aborted' });
      expect((await call(pre.env, 'mcp__web__echo', { message: 'late' })).out.output).toBe('echo: late');
    } finally {
      await silent.close();
      await fake.close();
    }
  });

  test('a call aborted while the servers are still connecting is interrupted, not unknown', async () => {
    const silent = await startSilentServer();
    try {
      const { env } = setup({ mcpServers: [{ name: 'mute', config: { url: silent.url } }] });
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 100);
      const { out } = await call(env, 'mcp__mute__anything', {}, { signal: ac.signal });
      expect(out).toMatchObject({ output: '[interrupted: tool aborted by user]', stop_reason: 'aborted' });
    } finally {
      await silent.close();
    }
  });

  test('listTools connects lazily and connect() still reports once; built-ins come first', async () => {
    const fake = await startFakeMcpServer();
    try {
      const { env } = setup({ tools: DEFAULT_BUILTIN_TOOLS.slice(0, 2), mcpServers: [{ name: 'web', config: { url: fake.url } }] });
      const names = (await env.listTools()).map((t) => t.name);
      expect(names.slice(0, 3)).toEqual(['read_file', 'edit_file', 'mcp__web__echo']);
      const events = payloads(await collect(env.connect!()));
      expect(events.map((e) => e.type)).toEqual(['mcp_connect_begin', 'mcp_connect_end']);
      expect(await collect(env.connect!())).toEqual([]);
    } finally {
      await fake.close();
    }
  });
});
