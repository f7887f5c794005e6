/**
 * Formatting glue: OutboundContent → the text and parse mode a Telegram call sends (HTML from the shared
 * Markdown converter; the Markdown as-is, without parse_mode, once Telegram rejected the formatted form),
 * and `measureTelegram`: a Markdown text's length as Telegram counts it after conversion (UTF-16 units of
 * the visible text), reported over the limit when the HTML would carry more entities than Telegram renders.
 */
import { TELEGRAM_LIMITS } from '../contract/limits';
import type { OutboundContent } from '../contract/surface';
import { telegramEntityCount, telegramLength, telegramVisibleText, toTelegramHtml } from '../format/telegram';

export interface TelegramText {
  text: string;
  parse_mode?: 'HTML';
}

/** What to send for `content`; never blank (Telegram rejects empty message text). */
export function telegramText(content: Pick<OutboundContent, 'text' | 'plain'>): TelegramText {
  if (content.plain) return { text: content.text.trim() === '' ? '…' : content.text };
  const html = toTelegramHtml(content.text);
  if (telegramVisibleText(html).trim() === '') return { text: content.text.trim() === '' ? '…' : content.text };
  return { text: html, parse_mode: 'HTML' };
}

/** Draft previews may be empty (Telegram then shows "Thinking…"). */
export function telegramDraftText(content: Pick<OutboundContent, 'text' | 'plain'>): TelegramText {
  if (content.text.trim() === '') return { text: '' };
  return telegramText(content);
}

export function measureTelegram(markdown: string): number {
  const html = toTelegramHtml(markdown);
  const length = telegramLength(html);
  const cap = TELEGRAM_LIMITS.maxEntities;
  if (cap !== undefined && telegramEntityCount(html) > cap) return Math.max(length, TELEGRAM_LIMITS.maxChars + 1);
  return length;
}
