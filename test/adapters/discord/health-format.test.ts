/**
 * The small pure parts: connection health transitions (connected → reconnecting → connected; a fatal close
 * stays failed; stop is final) and what fatal close codes tell the operator; message content never blank
 * and measured as Discord counts it; components within Discord's limits; the invite URL's permissions.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PermissionFlagsBits } from 'discord.js';
import { actionRows } from '../../../src/adapters/discord/components';
import { discordContent, measureDiscord } from '../../../src/adapters/discord/format';
import { ConnectionHealth, closeCodeDetail } from '../../../src/adapters/discord/health';
import { ADMINISTRATOR, inviteUrl, missingPermissions, REQUIRED_PERMISSION_BITS, REQUIRED_PERMISSIONS } from '../../../src/adapters/discord/invite';

describe('ConnectionHealth', () => {
  it('follows the connection and keeps the last sign of life', () => {
    let now = 1000;
    const c = new ConnectionHealth(() => now);
    expect(c.snapshot().state).toBe('reconnecting');
    c.connected();
    c.event();
    expect(c.snapshot()).toEqual({ state: 'connected', lastEventAt: 1000 });
    now = 2000;
    c.reconnecting('resuming');
    expect(c.snapshot(1500)).toEqual({ state: 'reconnecting', detail: 'resuming', lastEventAt: 1500 });
    c.connected();
    c.failed(closeCodeDetail(4014));
    c.reconnecting('again');
    expect(c.snapshot()).toMatchObject({ state: 'failed', detail: expect.stringContaining('Message Content') });
    c.stopped();
    c.connected();
    expect(c.snapshot().state).toBe('failed');
  });

  it('says what a fatal close code means', () => {
    expect(closeCodeDetail(4004)).toMatch(/DISCORD_BOT_TOKEN/);
    expect(closeCodeDetail(4014)).toMatch(/Privileged Gateway Intents.*discord\.message_content: false/);
    expect(closeCodeDetail(4999)).toBe('the gateway connection closed for good (close 4999)');
  });
});

describe('content and components', () => {
  it('never sends blank content, and measures what Discord counts', () => {
    expect(discordContent({ text: '  \n ', plain: false })).toBe('…');
    expect(discordContent({ text: '**x** @everyone', plain: true })).toBe('**x** @\u200beveryone');
    expect(measureDiscord('**bold** 😀')).toBe('**bold** 😀'.length);
  });

  it('puts at most five buttons in a row and refuses payloads Discord would refuse', () => {
    const b = (i: number) => ({ label: `B${i}`, payload: `s:t${i}` });
    expect(actionRows(Array.from({ length: 7 }, (_, i) => b(i))).map((r) => r.components.length)).toEqual([5, 2]);
    expect(actionRows([])).toEqual([]);
    expect(actionRows([{ label: 'x'.repeat(90), payload: 'c:1' }])[0].components[0].label).toHaveLength(80);
    expect(() => actionRows([{ label: 'too long', payload: 'x'.repeat(101) }])).toThrow(/custom_id must be 1-100/);
    expect(() => actionRows(Array.from({ length: 26 }, (_, i) => b(i)))).toThrow(/at most 25/);
  });
});

describe('invite', () => {
  it("names each permission by discord.js's own bit", () => {
    for (const p of REQUIRED_PERMISSIONS) expect(p.bit).toBe(PermissionFlagsBits[p.name]);
    expect(ADMINISTRATOR).toBe(PermissionFlagsBits.Administrator);
  });

  it('asks for exactly the permissions the adapter uses, and names what a guild lacks', () => {
    const url = new URL(inviteUrl('1234567890123456789'));
    expect(url.searchParams.get('scope')).toBe('bot applications.commands');
    expect(BigInt(url.searchParams.get('permissions')!)).toBe(REQUIRED_PERMISSION_BITS);
    expect(missingPermissions(REQUIRED_PERMISSION_BITS)).toEqual([]);
    expect(missingPermissions(REQUIRED_PERMISSION_BITS & ~PermissionFlagsBits.CreatePublicThreads)).toEqual(['Create Public Threads']);
    expect(missingPermissions(PermissionFlagsBits.Administrator)).toEqual([]);
  });

  it("is the README's invite link, and the README's permission table lists the same permissions", () => {
    const readme = readFileSync(resolve(__dirname, '../../../README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Discord'), readme.indexOf('## Performance'));
    expect(section).toContain(`&scope=bot+applications.commands&permissions=${REQUIRED_PERMISSION_BITS}`);
    const rows = [...section.matchAll(/^\| ([A-Z][A-Za-z ]+) \| [a-z][^|]+ \|$/gm)].map((m) => m[1]);
    expect(rows).toEqual(REQUIRED_PERMISSIONS.map((p) => p.label));
  });
});
