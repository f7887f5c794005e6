/**
 * Markdown → plain text, the degraded form sent after a platform rejected formatted text: no markup at
 * all, links as "label (url)", code kept verbatim on its own lines, lists with "•", tables aligned.
 */
import { Walker, type Dialect } from './markdown-walk';

const plain: Dialect = {
  text: (s) => s,
  strong: (x) => x,
  em: (x) => x,
  del: (x) => x,
  codespan: (c) => c,
  link: (href, _label, text) => (text === '' || text === href || `mailto:${text}` === href ? href : `${text} (${href})`),
  br: () => '\n',
  paragraph: (x) => x,
  heading: (_d, x) => x,
  code: (code) => code,
  blockquote: (inner) => inner.split('\n').map((l) => `│ ${l}`).join('\n'),
  hr: () => '──────────',
  bullet: (depth) => (depth % 2 === 0 ? '•' : '◦'),
  indent: '    ',
  table: (text) => text,
};

const walker = new Walker(plain);

export function toPlainText(markdown: string): string {
  return walker.render(markdown);
}
