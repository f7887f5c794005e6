/**
 * Markdown → Telegram HTML (parse_mode "HTML"): only the allowed tags (b, i, s, code, pre, a, blockquote),
 * `<pre><code class="language-x">` for fenced code, & < > escaped outside tags (and " in attributes),
 * headings bold, "•" lists, tables as aligned <pre> text. The output is well-formed for any input, so
 * partial text can be sent while streaming. Length is what Telegram counts: UTF-16 units of the visible text.
 */
import { Walker, type Dialect } from './markdown-walk';

export const escapeTelegramHtml = (s: string): string => s.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
const escapeAttr = (s: string) => escapeTelegramHtml(s).replace(/"/g, '&quot;');

function pre(code: string, lang: string): string {
  const l = lang.replace(/[^A-Za-z0-9_+-]/g, '');
  return l ? `<pre><code class="language-${l}">${escapeTelegramHtml(code)}</code></pre>` : `<pre>${escapeTelegramHtml(code)}</pre>`;
}

const wrap = (tag: string) => (x: string) => (x === '' ? '' : `<${tag}>${x}</${tag}>`);

const telegram: Dialect = {
  text: escapeTelegramHtml,
  strong: wrap('b'),
  em: wrap('i'),
  del: wrap('s'),
  codespan: (c) => `<code>${escapeTelegramHtml(c)}</code>`,
  link: (href, label) => `<a href="${escapeAttr(href)}">${label === '' ? escapeTelegramHtml(href) : label}</a>`,
  br: () => '\n',
  paragraph: (x) => x,
  heading: (_d, x) => `<b>${x}</b>`,
  code: pre,
  blockquote: (inner) => `<blockquote>${inner}</blockquote>`,
  hr: () => '——————————',
  bullet: (depth) => (depth % 2 === 0 ? '•' : '◦'),
  indent: '    ',
  table: (text) => pre(text, ''),
};

const walker = new Walker(telegram);

export function toTelegramHtml(markdown: string): string {
  return walker.render(markdown);
}

const ENTITY_LEN: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"' };

/** The text Telegram shows for our HTML: tags removed, the four entities we emit decoded. */
export function telegramVisibleText(html: string): string {
  return html.replace(/<[^>]*>/g, '').replace(/&(?:amp|lt|gt|quot);/g, (e) => ENTITY_LEN[e]);
}

/** Message length as Telegram counts it (UTF-16 code units after entity parsing). */
export function telegramLength(html: string): number {
  return telegramVisibleText(html).length;
}

/** Formatting entities the HTML creates (Telegram renders about 100 per message); <pre><code> counts once. */
export function telegramEntityCount(html: string): number {
  let n = 0;
  for (const m of html.matchAll(/<(b|i|s|code|pre|a|blockquote)[\s>]/g)) {
    if (m[1] === 'code' && html.slice(Math.max(0, m.index - 5), m.index) === '<pre>') continue;
    n++;
  }
  return n;
}
