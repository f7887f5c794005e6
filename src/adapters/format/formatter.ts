/**
 * Formatter: one object per platform bundling its Markdown conversion, its plain fallback and its length
 * rule, so the writer and the splitting helper stay platform-free. `splitRendered` cuts Markdown into
 * messages whose *rendered* form respects the platform limit (and Telegram's entity cap), closing and
 * reopening code fences across cuts.
 */
import type { LengthUnit } from '../contract/limits';
import { measureLength } from '../contract/limits';
import type { Platform } from '../contract/thread-ref';
import { chunkMarkdown } from '../render/markdown-chunks';
import { toDiscordMarkdown } from './discord';
import { toPlainText } from './plain';
import { toSlackMrkdwn } from './slack';
import { telegramEntityCount, telegramLength, toTelegramHtml } from './telegram';

export interface Formatter {
  platform: Platform;
  render(markdown: string): string;
  plain(markdown: string): string;
  /** Length of rendered output the way the platform counts it. */
  length(rendered: string): number;
  /** Formatting entities in rendered output, where the platform caps them. */
  entities?(rendered: string): number;
  maxEntities?: number;
}

const byUnit = (unit: LengthUnit) => (s: string) => measureLength(s, unit);

export const slackFormatter: Formatter = { platform: 'slack', render: toSlackMrkdwn, plain: toPlainText, length: byUnit('codepoints') };
export const discordFormatter: Formatter = { platform: 'discord', render: toDiscordMarkdown, plain: toPlainText, length: byUnit('codepoints') };
export const telegramFormatter: Formatter = {
  platform: 'telegram',
  render: toTelegramHtml,
  plain: toPlainText,
  length: telegramLength,
  entities: telegramEntityCount,
  maxEntities: 100,
};
/** Whether `markdown`, once rendered by `f`, is within `limit` (and the entity cap). */
export function fitsRendered(f: Formatter, markdown: string, limit: number): boolean {
  const r = f.render(markdown);
  if (f.length(r) > limit) return false;
  return !(f.entities && f.maxEntities !== undefined && f.entities(r) > f.maxEntities);
}

export interface RenderedPart {
  /** The Markdown of this part, fences closed/reopened across cuts. */
  markdown: string;
  rendered: string;
}

/** Split Markdown into parts whose rendered form is ≤ `limit` each (one part when it already fits). */
export function splitRendered(markdown: string, f: Formatter, limit: number): RenderedPart[] {
  const { chunks } = chunkMarkdown(markdown, { fits: (md) => fitsRendered(f, md, limit) });
  return chunks.map((c) => {
    const md = c.prefix + markdown.slice(c.start, c.end) + c.suffix;
    return { markdown: md, rendered: f.render(md) };
  });
}
