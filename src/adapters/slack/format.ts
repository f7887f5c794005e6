/**
 * What a Slack message carries for an OutboundContent: the reply's Markdown in a `markdown` block (Slack
 * renders standard Markdown there: headings, tables, fences; ≤12,000 characters), the buttons as an
 * `actions` block, and `text` as the notification fallback (mrkdwn from the same one-parse formatter,
 * which escapes & < >).
 * Approval cards are laid out as Block Kit (card-blocks.ts). `plain`: after Slack refused the blocks, the
 * text alone (mrkdwn-escaped). Model output can never ping: `<!here>` and `<@U…>` sequences are defused.
 */
import type { OutboundContent } from '../contract/surface';
import { escapeSlack, toSlackMrkdwn } from '../format/slack';
import { actionsBlock, type SlackBlock } from './blocks';
import { cardBlocks } from './card-blocks';

/** Longest notification fallback: the blocks carry the full text, `text` is what a notification previews. */
export const FALLBACK_TEXT_MAX = 3_000;

export interface SlackMessageBody {
  text: string;
  blocks: SlackBlock[];
}

/** A zero-width space after `<` keeps `<!channel>`, `<!here>`, `<!subteam^…>` and `<@U…>` from notifying anyone. */
export function defuseMentions(s: string): string {
  return s.replace(/<(?=[!@])/g, '<\u200b');
}

function cut(s: string, max: number): string {
  const cps = [...s];
  return cps.length <= max ? s : `${cps.slice(0, max - 1).join('')}…`;
}

/** Notification text for Markdown, as mrkdwn (never empty: Slack wants a fallback). */
export function fallbackText(markdown: string): string {
  const t = cut(toSlackMrkdwn(markdown).trim(), FALLBACK_TEXT_MAX);
  return t === '' ? '…' : t;
}

/** The body of chat.postMessage / chat.update for `content`. */
export function slackMessageBody(content: Pick<OutboundContent, 'text' | 'plain' | 'buttons' | 'card'>): SlackMessageBody {
  if (content.plain) return { text: escapeSlack(defuseMentions(content.text.trim() === '' ? '…' : content.text)), blocks: [] };
  if (content.card) return { text: fallbackText(content.text), blocks: cardBlocks(content.card.card, content.card.state) };
  const md = content.text.trim() === '' ? '…' : defuseMentions(content.text);
  const blocks: SlackBlock[] = [{ type: 'markdown', text: md }];
  const actions = actionsBlock(content.buttons);
  if (actions) blocks.push(actions);
  return { text: fallbackText(content.text), blocks };
}

/** Length as the markdown block counts it: code points of the Markdown sent. */
export function measureSlack(markdown: string): number {
  let n = 0;
  for (const _ of defuseMentions(markdown)) n++;
  return n;
}
