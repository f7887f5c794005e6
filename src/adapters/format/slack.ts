/**
 * Markdown → Slack mrkdwn (for `text` and section blocks): *bold*, _italic_, ~strike~, `code`, fences
 * without language, <url|label> links, headings as bold lines, "•" lists, "> " quotes, tables as aligned
 * code blocks. Escapes exactly what Slack reads as control characters: & < > (as &amp; &lt; &gt;).
 */
import { Walker, type Dialect } from './markdown-walk';

export const escapeSlack = (s: string): string => s.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));

/** Link targets keep their characters except the ones that would end the <…|…> control sequence. */
const slackUrl = (href: string) => escapeSlack(href).replace(/\|/g, '%7C');

const fence = (body: string) => '```\n' + escapeSlack(body).replace(/```/g, '`\u200b``') + '\n```';

const slack: Dialect = {
  text: escapeSlack,
  strong: (x) => (x === '' ? '' : `*${x}*`),
  em: (x) => (x === '' ? '' : `_${x}_`),
  del: (x) => (x === '' ? '' : `~${x}~`),
  codespan: (c) => '`' + escapeSlack(c).replace(/`/g, 'ˋ') + '`',
  link: (href, _label, plain) => (plain === '' || plain === href || `mailto:${plain}` === href ? `<${slackUrl(href)}>` : `<${slackUrl(href)}|${escapeSlack(plain).replace(/\|/g, '∣')}>`),
  br: () => '\n',
  paragraph: (x) => x,
  heading: (_depth, x) => `*${x}*`,
  code: (code) => fence(code),
  blockquote: (inner) => inner.split('\n').map((l) => `> ${l}`).join('\n'),
  hr: () => '──────────',
  bullet: (depth) => (depth % 2 === 0 ? '•' : '◦'),
  indent: '    ',
  table: (text) => fence(text),
};

const walker = new Walker(slack);

export function toSlackMrkdwn(markdown: string): string {
  return walker.render(markdown);
}
