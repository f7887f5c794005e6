/**
 * One Markdown parse (marked's lexer, GFM) walked into a platform dialect. The walker owns the structure
 * every platform shares — blocks separated by blank lines, lists with nesting and task boxes, tables laid
 * out as aligned monospace text, HTML kept as literal text — and asks the dialect only for the leaf syntax
 * (escaping, emphasis, code, links, headings, quotes). Renderers never use regexes on Markdown source.
 * A dialect is pure (same Markdown, same output), so short texts are rendered once per walker.
 */
import { Lexer, type Token, type Tokens } from 'marked';
import { displayWidth, pad } from './text-width';

export interface Dialect {
  /** Literal text (already entity-decoded): escape what the platform would read as markup. */
  text(s: string): string;
  strong(inner: string): string;
  em(inner: string): string;
  del(inner: string): string;
  codespan(code: string): string;
  /** `label` is rendered inline markup, `plainLabel` its text. */
  link(href: string, label: string, plainLabel: string): string;
  br(): string;
  paragraph(inline: string): string;
  heading(depth: number, inline: string): string;
  code(code: string, lang: string): string;
  blockquote(inner: string): string;
  hr(): string;
  /** Bullet for a list item at nesting `depth` (0 = top). */
  bullet(depth: number): string;
  /** Indentation per nesting level. */
  indent: string;
  /** Pre-rendered monospace table text → block. */
  table(text: string): string;
  /** Final touch on the whole output (e.g. mention neutralising). */
  finish?(out: string): string;
}

const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|(amp|lt|gt|quot|apos|nbsp));/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Decode the character references CommonMark would decode in text (numeric and the common named ones). */
export function decodeEntities(s: string): string {
  return s.replace(ENTITY, (m, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name) return NAMED[name];
    const cp = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
    return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : m;
  });
}

export function lex(markdown: string): Token[] {
  return Lexer.lex(markdown, { gfm: true, breaks: false });
}

/** Link targets a chat may show as links; anything else is shown as text. */
export function isSafeHref(href: string): boolean {
  return /^(https?:\/\/|mailto:|tg:\/\/)[^\s]+$/i.test(href);
}

/** Short texts (status lines, footers, buttons' labels) recur in every reply of every chat: rendered once each. */
const MEMO_MAX_LENGTH = 256;
const MEMO_ENTRIES = 2048;

export class Walker {
  private readonly memo = new Map<string, string>();

  constructor(private readonly d: Dialect) {}

  render(markdown: string): string {
    if (markdown.length > MEMO_MAX_LENGTH) return this.renderNow(markdown);
    let out = this.memo.get(markdown);
    if (out === undefined) {
      out = this.renderNow(markdown);
      // Cleared when full: the texts in use now come back at once, ones of past replies do not.
      if (this.memo.size >= MEMO_ENTRIES) this.memo.clear();
      this.memo.set(markdown, out);
    }
    return out;
  }

  private renderNow(markdown: string): string {
    const out = this.blocks(lex(markdown), 0).replace(/\s+$/, '');
    return this.d.finish ? this.d.finish(out) : out;
  }

  blocks(tokens: Token[], depth: number, sep = '\n\n'): string {
    const parts: string[] = [];
    for (const t of tokens) {
      const r = this.block(t, depth);
      if (r !== '') parts.push(r);
    }
    return parts.join(sep);
  }

  block(t: Token, depth: number): string {
    switch (t.type) {
      case 'space':
      case 'def':
        return '';
      case 'paragraph':
        return this.d.paragraph(this.inline((t as Tokens.Paragraph).tokens));
      case 'text': {
        const tt = t as Tokens.Text;
        return this.d.paragraph(tt.tokens ? this.inline(tt.tokens) : this.d.text(decodeEntities(tt.text)));
      }
      case 'heading': {
        const h = t as Tokens.Heading;
        return this.d.heading(h.depth, this.inline(h.tokens));
      }
      case 'code': {
        const c = t as Tokens.Code;
        return this.d.code(c.text, (c.lang ?? '').split(/\s/)[0]);
      }
      case 'blockquote':
        return this.d.blockquote(this.blocks((t as Tokens.Blockquote).tokens, depth));
      case 'hr':
        return this.d.hr();
      case 'list':
        return this.list(t as Tokens.List, depth);
      case 'table':
        return this.d.table(this.tableText(t as Tokens.Table));
      case 'html':
        return this.d.paragraph(this.d.text((t as Tokens.HTML).text.replace(/\n+$/, '')));
      default: {
        const g = t as Tokens.Generic;
        return g.tokens ? this.inline(g.tokens) : this.d.text(g.raw ?? '');
      }
    }
  }

  private list(list: Tokens.List, depth: number): string {
    const start = typeof list.start === 'number' ? list.start : 1;
    const width = list.ordered ? String(start + list.items.length - 1).length + 2 : displayWidth(this.d.bullet(depth)) + 1;
    const lead = this.d.indent.repeat(depth);
    const cont = lead + ' '.repeat(width);
    const items = list.items.map((item, i) => {
      const marker = list.ordered ? `${start + i}.` : this.d.bullet(depth);
      const box = item.task ? (item.checked ? '☑ ' : '☐ ') : '';
      const parts: string[] = [];
      for (const child of item.tokens) {
        if (child.type === 'list') parts.push(this.list(child as Tokens.List, depth + 1));
        else {
          const r = this.block(child, depth + 1);
          if (r !== '') parts.push(r.split('\n').map((l, k) => (k === 0 && parts.length === 0 ? l : l === '' ? l : cont + l)).join('\n'));
        }
      }
      const head = `${lead}${marker} ${box}`;
      if (parts.length === 0) return head.trimEnd();
      const [first, ...rest] = parts;
      const firstIsList = item.tokens[0]?.type === 'list';
      return [firstIsList ? `${head.trimEnd()}\n${first}` : head + first, ...rest].join(item.loose ? '\n\n' : '\n');
    });
    return items.join(list.loose ? '\n\n' : '\n');
  }

  /** Text content of inline tokens, without markup (table cells, link labels). */
  plain(tokens: Token[] | undefined): string {
    if (!tokens) return '';
    return tokens
      .map((t) => {
        switch (t.type) {
          case 'text':
          case 'escape': {
            const tt = t as Tokens.Text;
            return tt.tokens ? this.plain(tt.tokens) : decodeEntities(tt.text);
          }
          case 'codespan':
            return decodeEntities((t as Tokens.Codespan).text);
          case 'br':
            return ' ';
          case 'image':
            return (t as Tokens.Image).text;
          case 'html':
            return (t as Tokens.Tag).text;
          default: {
            const g = t as Tokens.Generic;
            return g.tokens ? this.plain(g.tokens) : decodeEntities(g.text ?? '');
          }
        }
      })
      .join('');
  }

  inline(tokens: Token[] | undefined): string {
    if (!tokens) return '';
    const d = this.d;
    return tokens
      .map((t) => {
        switch (t.type) {
          case 'text': {
            const tt = t as Tokens.Text;
            return tt.tokens ? this.inline(tt.tokens) : d.text(decodeEntities(tt.text));
          }
          case 'escape':
            return d.text((t as Tokens.Escape).text);
          case 'strong':
            return d.strong(this.inline((t as Tokens.Strong).tokens));
          case 'em':
            return d.em(this.inline((t as Tokens.Em).tokens));
          case 'del':
            return d.del(this.inline((t as Tokens.Del).tokens));
          case 'codespan':
            return d.codespan(decodeEntities((t as Tokens.Codespan).text));
          case 'br':
            return d.br();
          case 'link': {
            const l = t as Tokens.Link;
            const label = this.inline(l.tokens);
            const plainLabel = this.plain(l.tokens);
            return isSafeHref(l.href) ? d.link(l.href, label, plainLabel) : plainLabel === l.href ? d.text(l.href) : `${label}${d.text(` (${l.href})`)}`;
          }
          case 'image': {
            const im = t as Tokens.Image;
            const alt = `🖼 ${im.text || 'image'}`;
            return isSafeHref(im.href) ? d.link(im.href, d.text(alt), alt) : d.text(alt);
          }
          case 'html':
            return d.text((t as Tokens.Tag).text);
          default: {
            const g = t as Tokens.Generic;
            return g.tokens ? this.inline(g.tokens) : d.text(decodeEntities(g.text ?? g.raw ?? ''));
          }
        }
      })
      .join('');
  }

  /** A GFM table as aligned monospace text (header, rule, rows). */
  tableText(table: Tokens.Table): string {
    const rows = [table.header.map((c) => this.plain(c.tokens)), ...table.rows.map((r) => r.map((c) => this.plain(c.tokens)))].map((r) => r.map((c) => c.replace(/\s+/g, ' ').trim()));
    const cols = Math.max(...rows.map((r) => r.length));
    const widths = Array.from({ length: cols }, (_, k) => Math.max(1, ...rows.map((r) => displayWidth(r[k] ?? ''))));
    const line = (r: string[]) => widths.map((w, k) => pad(r[k] ?? '', w, table.align[k] ?? null)).join(' │ ').replace(/\s+$/, '');
    const rule = widths.map((w) => '─'.repeat(w)).join('─┼─');
    return [line(rows[0]), rule, ...rows.slice(1).map(line)].join('\n');
  }
}
