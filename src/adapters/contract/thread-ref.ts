/**
 * ThreadRef: where a conversation lives on a platform, and its binding key codec (gateway.md §3):
 * `slack:<team>:<channel>:<thread_ts>`, `discord:<guild|dm>:<channel>:<thread|->`, `telegram:<chat>:<topic|->`.
 * Ids are percent-escaped (anything outside [A-Za-z0-9._~+-], plus a literal "-" or "dm" that would read as
 * a sentinel), so every non-empty id round-trips: parseBindingKey(bindingKey(ref)) deep-equals ref.
 */
import * as z from 'zod';
import { PlatformError } from './errors';

export type Platform = 'slack' | 'discord' | 'telegram' | 'web';
export const PLATFORMS: readonly Platform[] = ['slack', 'discord', 'telegram', 'web'];

export interface SlackThreadRef {
  platform: 'slack';
  team: string;
  channel: string;
  /** The parent message ts: replies always go to the parent (`thread_ts ?? ts`). */
  threadTs: string;
}
export interface DiscordThreadRef {
  platform: 'discord';
  /** null = a DM channel. */
  guild: string | null;
  channel: string;
  /** null = the channel itself, no thread. */
  thread: string | null;
}
export interface TelegramThreadRef {
  platform: 'telegram';
  chat: string;
  /** Forum topic (`message_thread_id`); null = no topic. */
  topic: string | null;
}
/** The dashboard playground: one conversation per id, in-process. */
export interface WebThreadRef {
  platform: 'web';
  conversation: string;
}
export type ThreadRef = SlackThreadRef | DiscordThreadRef | TelegramThreadRef | WebThreadRef;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const id = (what: string) =>
  z
    .string({ error: `${what} must be a string` })
    .min(1, `${what} must not be empty`)
    .refine((s) => !LONE_SURROGATE.test(s), `${what} contains a lone UTF-16 surrogate`);

export const threadRefSchema = z.discriminatedUnion('platform', [
  z.object({ platform: z.literal('slack'), team: id('slack team'), channel: id('slack channel'), threadTs: id('slack thread_ts') }),
  z.object({ platform: z.literal('discord'), guild: id('discord guild').nullable(), channel: id('discord channel'), thread: id('discord thread').nullable() }),
  z.object({ platform: z.literal('telegram'), chat: id('telegram chat'), topic: id('telegram topic').nullable() }),
  z.object({ platform: z.literal('web'), conversation: id('web conversation') }),
]);

const NONE = '-';
const DM = 'dm';
const SAFE = /^[A-Za-z0-9._~+-]$/;

/** Percent-escape one id component; `reserved` words (sentinels) get their first character escaped. */
export function escapeComponent(value: string, reserved: readonly string[] = []): string {
  let out = '';
  for (const ch of value) {
    if (SAFE.test(ch)) out += ch;
    else for (const byte of Buffer.from(ch, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  if (reserved.includes(out)) out = `%${out.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}${out.slice(1)}`;
  return out;
}

export class BindingKeyError extends Error {
  constructor(readonly key: string, reason: string) {
    super(`invalid binding key ${JSON.stringify(key)}: ${reason}`);
    this.name = 'BindingKeyError';
  }
}

function unescapeComponent(key: string, part: string, what: string): string {
  if (part === '') throw new BindingKeyError(key, `${what} is empty`);
  if (!/^(?:[A-Za-z0-9._~+-]|%[0-9A-Fa-f]{2})+$/.test(part)) throw new BindingKeyError(key, `${what} ${JSON.stringify(part)} has an unescaped character`);
  try {
    return decodeURIComponent(part);
  } catch {
    throw new BindingKeyError(key, `${what} ${JSON.stringify(part)} is not valid percent-encoded UTF-8`);
  }
}

/**
 * The binding key of a thread; validates the ref first. A bad ref is a caller's mistake: a PlatformError
 * classified `surface` (never retried) whose message names the bad field.
 */
export function bindingKey(ref: ThreadRef): string {
  const r = threadRefSchema.safeParse(ref);
  if (!r.success) {
    const platform = PLATFORMS.includes((ref as { platform?: Platform } | undefined)?.platform as Platform) ? (ref as ThreadRef).platform : 'test';
    throw new PlatformError(platform, { kind: 'surface', reason: 'invalid_request' }, `invalid ThreadRef: ${r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  }
  const v = r.data;
  switch (v.platform) {
    case 'slack':
      return ['slack', escapeComponent(v.team), escapeComponent(v.channel), escapeComponent(v.threadTs)].join(':');
    case 'discord':
      return ['discord', v.guild === null ? DM : escapeComponent(v.guild, [DM]), escapeComponent(v.channel), v.thread === null ? NONE : escapeComponent(v.thread, [NONE])].join(':');
    case 'telegram':
      return ['telegram', escapeComponent(v.chat), v.topic === null ? NONE : escapeComponent(v.topic, [NONE])].join(':');
    case 'web':
      return ['web', escapeComponent(v.conversation)].join(':');
  }
}

/** Parse a binding key back into its ThreadRef; throws BindingKeyError naming what is wrong. */
export function parseBindingKey(key: string): ThreadRef {
  if (typeof key !== 'string') throw new BindingKeyError(String(key), 'not a string');
  const parts = key.split(':');
  const platform = parts[0];
  const expect = (n: number, shape: string) => {
    if (parts.length !== n) throw new BindingKeyError(key, `${platform} keys have ${n} parts (${shape}), found ${parts.length}`);
  };
  switch (platform) {
    case 'slack':
      expect(4, 'slack:<team>:<channel>:<thread_ts>');
      return {
        platform,
        team: unescapeComponent(key, parts[1], 'team'),
        channel: unescapeComponent(key, parts[2], 'channel'),
        threadTs: unescapeComponent(key, parts[3], 'thread_ts'),
      };
    case 'discord':
      expect(4, 'discord:<guild|dm>:<channel>:<thread|->');
      return {
        platform,
        guild: parts[1] === DM ? null : unescapeComponent(key, parts[1], 'guild'),
        channel: unescapeComponent(key, parts[2], 'channel'),
        thread: parts[3] === NONE ? null : unescapeComponent(key, parts[3], 'thread'),
      };
    case 'telegram':
      expect(3, 'telegram:<chat>:<topic|->');
      return {
        platform,
        chat: unescapeComponent(key, parts[1], 'chat'),
        topic: parts[2] === NONE ? null : unescapeComponent(key, parts[2], 'topic'),
      };
    case 'web':
      expect(2, 'web:<conversation>');
      return { platform, conversation: unescapeComponent(key, parts[1], 'conversation') };
    default:
      throw new BindingKeyError(key, `unknown platform ${JSON.stringify(platform)} (expected slack, discord, telegram or web)`);
  }
}

export type ParsedKey = { ok: true; ref: ThreadRef } | { ok: false; error: string };

/** Non-throwing parse for untrusted input (config `deliver_to`, admin API). */
export function tryParseBindingKey(key: string): ParsedKey {
  try {
    return { ok: true, ref: parseBindingKey(key) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}
