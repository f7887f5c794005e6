/**
 * Shared pieces of the fake's text formatting: the parse-failure error, UTF-8 byte offsets for error
 * messages (Telegram reports byte offsets, while entity offsets are UTF-16 units), link normalisation,
 * the order Telegram lists entities in, and clipping of caller-supplied `entities` to the text.
 */
import type { TgEntity } from './telegram-types';

/** A markup parse failure; the message is the detail after "Bad Request: can't parse entities: ". */
export class FormatError extends Error {}

export function byteOffset(src: string, index: number): number {
  return Buffer.byteLength(src.slice(0, index), 'utf8');
}

const ALLOWED_SCHEMES = /^(https?|ftp|tg|tonsite):/i;

/** The URL Telegram stores for a link, or undefined when it would render no link at all. */
export function normalizeUrl(raw: string): string | undefined {
  const s = raw;
  if (s === '' || /\s/.test(s)) return undefined;
  if (/^[a-z][a-z0-9+.-]*:/i.test(s)) {
    if (!ALLOWED_SCHEMES.test(s)) return undefined;
    try {
      return new URL(s).href;
    } catch {
      return undefined;
    }
  }
  if (!s.includes('.')) return undefined;
  try {
    return new URL(`http://${s}`).href;
  } catch {
    return undefined;
  }
}

const TYPE_ORDER = [
  'blockquote', 'expandable_blockquote', 'pre', 'code', 'text_link', 'text_mention', 'custom_emoji',
  'bold', 'italic', 'underline', 'strikethrough', 'spoiler',
];
const rank = (t: string): number => {
  const r = TYPE_ORDER.indexOf(t);
  return r < 0 ? TYPE_ORDER.length : r;
};

/** Outer entities first: by offset, then longer first, then a fixed type order. */
export function sortEntities(list: TgEntity[]): TgEntity[] {
  return list.sort((a, b) => a.offset - b.offset || b.length - a.length || rank(a.type) - rank(b.type));
}

export const ENTITY_TYPES = new Set([
  'mention', 'hashtag', 'cashtag', 'bot_command', 'url', 'email', 'phone_number', 'bold', 'italic', 'underline',
  'strikethrough', 'spoiler', 'blockquote', 'expandable_blockquote', 'code', 'pre', 'text_link', 'text_mention',
  'custom_emoji', 'date_time',
]);

/**
 * Caller-supplied entities as Telegram keeps them: unknown types and malformed items are dropped,
 * ranges are clipped to the text, empty ones vanish.
 */
export function sanitizeEntities(raw: unknown[], textLength: number): TgEntity[] {
  const out: TgEntity[] = [];
  for (const item of raw) {
    if (typeof item !== 'object' || item === null) continue;
    const e = item as Record<string, unknown>;
    if (typeof e.type !== 'string' || !ENTITY_TYPES.has(e.type)) continue;
    if (!Number.isInteger(e.offset) || !Number.isInteger(e.length)) continue;
    const start = Math.max(0, e.offset as number);
    const end = Math.min(textLength, (e.offset as number) + (e.length as number));
    if (end <= start) continue;
    const kept: TgEntity = { type: e.type, offset: start, length: end - start };
    if (e.type === 'text_link') {
      const url = typeof e.url === 'string' ? normalizeUrl(e.url) : undefined;
      if (!url) continue;
      kept.url = url;
    }
    if (e.type === 'pre' && typeof e.language === 'string' && e.language !== '') kept.language = e.language;
    if (e.type === 'custom_emoji') {
      if (typeof e.custom_emoji_id !== 'string') continue;
      kept.custom_emoji_id = e.custom_emoji_id;
    }
    if (e.type === 'text_mention') {
      if (typeof e.user !== 'object' || e.user === null) continue;
      kept.user = e.user as TgEntity['user'];
    }
    out.push(kept);
  }
  return sortEntities(out);
}
