/**
 * Markdown → Discord message Markdown: **bold**, *italic*, ~~strike~~, code spans and fences with language,
 * [label](url) links, # – ### headings (deeper ones bold), "-" lists, "> " quotes, tables as aligned code
 * blocks (Discord has none). Literal text is backslash-escaped where Discord would read markup, and
 * @everyone / @here are neutralised with a zero-width space (allowed_mentions stays the adapter's job).
 */
import { Walker, type Dialect } from './markdown-walk';

/** Characters Discord reads as inline markup anywhere in a line. */
export const escapeDiscord = (s: string): string => s.replace(/[\\*_~`|[\]]/g, (c) => `\\${c}`);

/** Line starts Discord reads as block markup: headings, subtext, quotes, list markers. */
function escapeLineStarts(s: string): string {
  return s
    .split('\n')
    .map((l) => (/^(#{1,3} |-# |>|[-+*] |\d+[.)] )/.test(l) ? `\\${l}` : l))
    .join('\n');
}

/** `@everyone` / `@here` as mentions (not inside e-mail addresses) get a zero-width space after the @. */
export const neutralizeMentions = (s: string): string => s.replace(/(?<![\w.+-])@(everyone|here)\b/g, '@\u200b$1');

function fence(body: string, lang: string): string {
  return '```' + lang.replace(/[^A-Za-z0-9_+-]/g, '') + '\n' + body.replace(/```/g, '`\u200b``') + '\n```';
}

function codespan(code: string): string {
  if (!code.includes('`')) return '`' + code + '`';
  const safe = code.replace(/``/g, '`\u200b`');
  return '`` ' + safe + ' ``';
}

const discordUrl = (href: string) => href.replace(/[()<> ]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const discord: Dialect = {
  text: escapeDiscord,
  strong: (x) => (x === '' ? '' : `**${x}**`),
  em: (x) => (x === '' ? '' : `*${x}*`),
  del: (x) => (x === '' ? '' : `~~${x}~~`),
  codespan,
  link: (href, label, plain) =>
    `mailto:${plain}` === href ? escapeDiscord(plain) : plain === href || label === '' ? `<${discordUrl(href)}>` : `[${label}](${discordUrl(href)})`,
  br: () => '\n',
  paragraph: escapeLineStarts,
  heading: (depth, x) => (depth <= 3 ? `${'#'.repeat(depth)} ${x}` : `**${x}**`),
  code: fence,
  blockquote: (inner) => inner.split('\n').map((l) => `> ${l}`).join('\n'),
  hr: () => '──────────',
  bullet: () => '-',
  indent: '  ',
  table: (text) => fence(text, ''),
  finish: neutralizeMentions,
};

const walker = new Walker(discord);

export function toDiscordMarkdown(markdown: string): string {
  return walker.render(markdown);
}
