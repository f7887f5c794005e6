/**
 * Turns what a bot sends (text + parse_mode or explicit entities) into what the user sees: visible text
 * and entities, with Telegram's limits — text 1–4,096 and captions ≤1,024 UTF-16 units after entity
 * parsing. Markup errors become 400 "can't parse entities: …"; an unknown parse_mode is a 400 too.
 */
import { FormatError, sanitizeEntities } from './telegram-entities';
import { tgErrors } from './telegram-errors';
import { parseHtml } from './telegram-html';
import { parseMarkdownLegacy, parseMarkdownV2 } from './telegram-markdown';
import type { TgEntity } from './telegram-types';

export const MAX_TEXT = 4096;
export const MAX_CAPTION = 1024;

export interface FormattedText {
  text: string;
  entities: TgEntity[];
}

/** Parses markup; explicit `entities` win over `parse_mode`, as in the Bot API. */
export function formatText(raw: string, parseMode: string | undefined, entities: unknown[] | undefined): FormattedText {
  if (entities !== undefined) return { text: raw, entities: sanitizeEntities(entities, raw.length) };
  const mode = (parseMode ?? '').toLowerCase();
  try {
    switch (mode) {
      case '':
        return { text: raw, entities: [] };
      case 'html':
        return parseHtml(raw);
      case 'markdownv2':
        return parseMarkdownV2(raw);
      case 'markdown':
        return parseMarkdownLegacy(raw);
      default:
        throw tgErrors.badRequest('unsupported parse_mode');
    }
  } catch (err) {
    if (err instanceof FormatError) throw tgErrors.cantParseEntities(err.message);
    throw err;
  }
}

/** Message text: required, non-blank after parsing, at most 4,096 UTF-16 units. */
export function formatMessageText(raw: string | undefined, parseMode: string | undefined, entities: unknown[] | undefined): FormattedText {
  if (raw === undefined || raw === '') throw tgErrors.badRequest('message text is empty');
  const out = formatText(raw, parseMode, entities);
  if (out.text.trim() === '') throw tgErrors.badRequest('message text is empty');
  if (out.text.length > MAX_TEXT) throw tgErrors.badRequest('message is too long');
  return out;
}

/** Caption: optional, at most 1,024 UTF-16 units after parsing. */
export function formatCaption(raw: string | undefined, parseMode: string | undefined, entities: unknown[] | undefined): FormattedText | undefined {
  if (raw === undefined || raw === '') return undefined;
  const out = formatText(raw, parseMode, entities);
  if (out.text.length > MAX_CAPTION) throw tgErrors.badRequest('message caption is too long');
  return out.text === '' ? undefined : out;
}

/** Draft text: 0–4,096 units (empty shows the "Thinking…" placeholder). */
export function formatDraftText(raw: string | undefined, parseMode: string | undefined, entities: unknown[] | undefined): FormattedText {
  const out = raw === undefined || raw === '' ? { text: '', entities: [] } : formatText(raw, parseMode, entities);
  if (out.text.length > MAX_TEXT) throw tgErrors.badRequest('message is too long');
  return out;
}
