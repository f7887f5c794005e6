/**
 * Formatting glue: OutboundContent → the `content` of a Discord message (Discord Markdown from the shared
 * one-parse converter, tables as code blocks; the Markdown as-is when `plain`), never blank since Discord
 * refuses an empty message, and `measureDiscord`: a Markdown text's length once converted, in UTF-16 units
 * (what Discord's 2,000 check counts; never fewer than code points, so the limit holds either way).
 */
import type { OutboundContent } from '../contract/surface';
import { neutralizeMentions, toDiscordMarkdown } from '../format/discord';

export function discordContent(content: Pick<OutboundContent, 'text' | 'plain'>): string {
  const out = content.plain ? neutralizeMentions(content.text) : toDiscordMarkdown(content.text);
  return out.trim() === '' ? '…' : out;
}

export function measureDiscord(markdown: string): number {
  return toDiscordMarkdown(markdown).length;
}
