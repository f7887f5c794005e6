/**
 * Doctor's Discord check, read-only calls through the configured REST root: the token (`GET /users/@me`);
 * with `discord.message_content`, whether the application has the privileged Message Content intent
 * (`GET /applications/@me` flags; without it the gateway closes with 4014); and for each configured guild,
 * which of the permissions the adapter uses the bot's roles lack (the invite link that grants them is in
 * the fix). Each problem names the missing intent or permission.
 */
import { inviteUrl, missingPermissions } from '../../../adapters/discord/invite';
import type { GatewayConfig } from '../../config';
import { field, probe, str } from './http';
import { notConfigured, type CheckResult } from './types';

/** Application flags saying the Message Content intent is on (verified, or under 100 guilds). */
const MESSAGE_CONTENT_FLAGS = (1 << 18) | (1 << 19);

type Get = (path: string) => ReturnType<typeof probe>;

async function messageContentProblem(get: Get): Promise<{ problem: string; fix: string } | undefined> {
  const unread = (why: string) => ({ problem: `could not read the application (${why})`, fix: 'check DISCORD_API_URL and try again' });
  const r = await get('/applications/@me');
  if (r.kind === 'network') return unread(r.message);
  const flags = Number(field(r.json, 'flags'));
  if (r.status !== 200 || !Number.isFinite(flags)) return unread(`HTTP ${r.status}`);
  if ((flags & MESSAGE_CONTENT_FLAGS) !== 0) return undefined;
  return {
    problem: 'discord.message_content is on, but the application lacks the Message Content intent (the gateway would close with 4014)',
    fix: 'enable Message Content Intent in the Developer Portal (Bot → Privileged Gateway Intents), or set discord.message_content: false',
  };
}

/** What the bot lacks in one guild, or why that could not be read. */
async function guildProblem(get: Get, guild: string, botId: string): Promise<string | undefined> {
  const member = await get(`/guilds/${guild}/members/${botId}`);
  if (member.kind === 'network') return `guild ${guild}: ${member.message}`;
  if (member.status !== 200) return `guild ${guild}: the bot is not a member (HTTP ${member.status})`;
  const roles = await get(`/guilds/${guild}/roles`);
  if (roles.kind === 'network' || roles.status !== 200 || !Array.isArray(roles.json)) return `guild ${guild}: could not read its roles`;
  const mine = new Set([guild, ...((field(member.json, 'roles') as unknown[] | undefined) ?? []).map(String)]);
  let bits = 0n;
  for (const role of roles.json as unknown[]) {
    const id = str(field(role, 'id'));
    const perms = str(field(role, 'permissions'));
    if (id && perms && mine.has(id) && /^\d+$/.test(perms)) bits |= BigInt(perms);
  }
  const missing = missingPermissions(bits);
  return missing.length ? `guild ${guild}: the bot lacks ${missing.join(', ')}` : undefined;
}

export async function checkDiscord(c: GatewayConfig['discord'], timeoutMs: number): Promise<CheckResult> {
  const name = 'discord';
  if (!c.enabled || !c.bot_token) return notConfigured(name, c.enabled);
  const root = c.api_url.replace(/\/+$/, '');
  const get: Get = (path) => probe(`${root}/v10${path}`, { method: 'GET', headers: { authorization: `Bot ${c.bot_token}` } }, timeoutMs);
  const r = await get('/users/@me');
  if (r.kind === 'network') return { name, status: 'fail', detail: `cannot reach ${root}: ${r.message}`, fix: 'check the network, or DISCORD_API_URL if you use a REST proxy' };
  const id = str(field(r.json, 'id'));
  const message = str(field(r.json, 'message')) ?? 'no message';
  if (r.status === 401 || r.status === 403) {
    return { name, status: 'fail', detail: `${root} rejected the bot token (HTTP ${r.status}: ${message})`, fix: 'set DISCORD_BOT_TOKEN to the token from the Developer Portal (Application → Bot → Reset Token), or DISCORD_TOKEN if that is the one you set' };
  }
  if (r.status !== 200 || !id) return { name, status: 'fail', detail: `unexpected answer from ${root}/v10/users/@me (HTTP ${r.status}: ${message})`, fix: 'check DISCORD_API_URL and try again' };
  const bot = `bot ${str(field(r.json, 'username')) ?? '?'} (id ${id}) via ${root}`;
  const intent = c.message_content ? await messageContentProblem(get) : undefined;
  if (intent) return { name, status: 'fail', detail: `${bot}: ${intent.problem}`, fix: intent.fix };
  const guilds = (await Promise.all(c.guild_ids.map((g) => guildProblem(get, g, id)))).filter((p): p is string => p !== undefined);
  if (guilds.length) return { name, status: 'fail', detail: `${bot}: ${guilds.join('; ')}`, fix: `grant those permissions to the bot's role, or invite it again with ${inviteUrl(id)}` };
  return { name, status: 'ok', detail: c.guild_ids.length ? `${bot}; permissions complete in ${c.guild_ids.length} guild${c.guild_ids.length === 1 ? '' : 's'}` : bot };
}
