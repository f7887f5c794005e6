/**
 * `parse_mode: "MarkdownV2"` and legacy `"Markdown"` as Telegram applies them. MarkdownV2: `*bold*`,
 * `_italic_`, `__underline__`, `~strike~`, `||spoiler||`, `` `code` ``, ```` ```lang pre``` ````,
 * `[text](url)`, `![x](tg://emoji?id=N)`, `>` and `**>`…`||` block quotes; every reserved character
 * outside code must be escaped. Errors use Telegram's wording and UTF-8 byte offsets (FormatError).
 */
import { byteOffset, FormatError, normalizeUrl, sortEntities } from './telegram-entities';
import type { TgEntity } from './telegram-types';

type Kind = 'Bold' | 'Italic' | 'Underline' | 'Strikethrough' | 'Spoiler' | 'Code' | 'Pre' | 'PreCode' | 'TextUrl' | 'CustomEmoji';

const V2_SPECIAL = new Set('_*[]()~`>#+-=|{}.!\\\n'.split(''));
const SIMPLE_TYPE: Partial<Record<Kind, string>> = {
  Bold: 'bold', Italic: 'italic', Underline: 'underline', Strikethrough: 'strikethrough', Spoiler: 'spoiler', Code: 'code',
};
const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isNewline = (c: string | undefined): boolean => c === '\n' || c === '\r';

interface Open {
  kind: Kind;
  start: number;
  bytePos: number;
  language?: string;
}

function endsHere(kind: Kind, src: string, i: number): boolean {
  const c = src[i];
  switch (kind) {
    case 'Bold': return c === '*';
    case 'Italic': return c === '_' && src[i + 1] !== '_';
    case 'Underline': return c === '_' && src[i + 1] === '_';
    case 'Strikethrough': return c === '~';
    case 'Spoiler': return c === '|' && src[i + 1] === '|';
    case 'Code': return c === '`';
    case 'Pre':
    case 'PreCode': return c === '`' && src[i + 1] === '`' && src[i + 2] === '`';
    case 'TextUrl':
    case 'CustomEmoji': return c === ']';
  }
}

class Output {
  private parts: string[] = [];
  length = 0;
  readonly entities: TgEntity[] = [];
  add(s: string): void {
    this.parts.push(s);
    this.length += s.length;
  }
  text(): string {
    const joined = this.parts.join('');
    this.parts = [joined];
    return joined;
  }
  entity(e: TgEntity): void {
    if (e.length > 0) this.entities.push(e);
  }
}

export function parseMarkdownV2(src: string): { text: string; entities: TgEntity[] } {
  const n = src.length;
  const out = new Output();
  const stack: Open[] = [];
  let quote: { start: number; expandable: boolean } | undefined;
  const closeQuote = (end: number): void => {
    if (!quote) return;
    out.entity({ type: quote.expandable ? 'expandable_blockquote' : 'blockquote', offset: quote.start, length: end - quote.start });
    quote = undefined;
  };
  let i = 0;
  while (i < n) {
    const top = stack[stack.length - 1];
    const inCode = top !== undefined && (top.kind === 'Code' || top.kind === 'Pre' || top.kind === 'PreCode');
    if (!inCode && (i === 0 || src[i - 1] === '\n')) {
      if (src[i] === '>') {
        if (!quote) quote = { start: out.length, expandable: false };
        i++;
        continue;
      }
      if (src.startsWith('**>', i)) {
        if (!quote) quote = { start: out.length, expandable: true };
        i += 3;
        continue;
      }
      if (quote && i > 0) closeQuote(out.length - 1);
    }
    const c = src[i];
    if (c === '\\') {
      const next = src.charCodeAt(i + 1);
      if (i + 1 < n && next > 0 && next < 127) {
        out.add(src[i + 1]);
        i += 2;
      } else {
        out.add('\\');
        i++;
      }
      continue;
    }
    if (inCode ? c !== '`' : !V2_SPECIAL.has(c) || c === '\n') {
      let j = i + 1;
      while (j < n && src[j] !== '\\' && src[j] !== '\n' && (inCode ? src[j] !== '`' : !V2_SPECIAL.has(src[j]))) j++;
      if (c === '\n') j = i + 1;
      out.add(src.slice(i, j));
      i = j;
      continue;
    }
    if (c === '|' && quote?.expandable && src[i + 1] === '|' && (i + 2 === n || src[i + 2] === '\n') && top?.kind !== 'Spoiler') {
      closeQuote(out.length);
      i += 2;
      continue;
    }
    if (top !== undefined && endsHere(top.kind, src, i)) {
      stack.pop();
      i = closeEntity(top, src, i, out);
      continue;
    }
    const begin = i;
    let kind: Kind;
    let language: string | undefined;
    switch (c) {
      case '_':
        kind = src[i + 1] === '_' ? 'Underline' : 'Italic';
        i += kind === 'Underline' ? 2 : 1;
        break;
      case '*': kind = 'Bold'; i++; break;
      case '~': kind = 'Strikethrough'; i++; break;
      case '[': kind = 'TextUrl'; i++; break;
      case '|':
        if (src[i + 1] !== '|') throw reserved(c);
        kind = 'Spoiler';
        i += 2;
        break;
      case '!':
        if (src[i + 1] !== '[') throw reserved(c);
        kind = 'CustomEmoji';
        i += 2;
        break;
      case '`':
        if (src[i + 1] === '`' && src[i + 2] === '`') {
          i += 3;
          let j = i;
          while (j < n && !isSpace(src[j]) && src[j] !== '`') j++;
          if (j < n && j > i && isSpace(src[j])) {
            kind = 'PreCode';
            language = src.slice(i, j);
            i = j;
            if (isNewline(src[i])) {
              const first = src[i++];
              if (isNewline(src[i]) && src[i] !== first) i++;
            }
          } else {
            kind = 'Pre';
          }
        } else {
          kind = 'Code';
          i++;
        }
        break;
      default:
        throw reserved(c);
    }
    stack.push({ kind, start: out.length, bytePos: byteOffset(src, begin), language });
  }
  if (stack.length > 0) {
    const last = stack[stack.length - 1];
    throw new FormatError(`Can't find end of ${last.kind} entity at byte offset ${last.bytePos}`);
  }
  closeQuote(out.length);
  return { text: out.text(), entities: sortEntities(out.entities) };
}

function reserved(c: string): FormatError {
  return new FormatError(`Character '${c}' is reserved and must be escaped with the preceding '\\'`);
}

/** Closes `top` whose end marker starts at `i`; returns the index after the marker (and any link target). */
function closeEntity(top: Open, src: string, i: number, out: Output): number {
  const base = { offset: top.start, length: out.length - top.start };
  const simple = SIMPLE_TYPE[top.kind];
  if (simple) {
    out.entity({ type: simple, ...base });
    return i + (top.kind === 'Underline' || top.kind === 'Spoiler' ? 2 : 1);
  }
  if (top.kind === 'Pre' || top.kind === 'PreCode') {
    out.entity(top.language ? { type: 'pre', ...base, language: top.language } : { type: 'pre', ...base });
    return i + 3;
  }
  i++;
  let url: string;
  if (src[i] === '(') {
    const urlStart = i + 1;
    let j = urlStart;
    url = '';
    while (j < src.length && src[j] !== ')') {
      if (src[j] === '\\' && (src[j + 1] === ')' || src[j + 1] === '\\')) {
        url += src[j + 1];
        j += 2;
      } else {
        url += src[j++];
      }
    }
    if (j >= src.length) throw new FormatError(`Can't find end of a URL at byte offset ${byteOffset(src, urlStart)}`);
    i = j + 1;
  } else {
    url = out.text().slice(top.start);
  }
  if (top.kind === 'CustomEmoji') {
    const m = /^tg:\/\/emoji\?id=(\d+)$/.exec(url);
    if (!m) throw new FormatError('Custom emoji entity must contain a tg://emoji URL');
    out.entity({ type: 'custom_emoji', ...base, custom_emoji_id: m[1] });
    return i;
  }
  const normalized = normalizeUrl(url);
  if (normalized) out.entity({ type: 'text_link', ...base, url: normalized });
  return i;
}

const LEGACY_MARKERS = '_*`[';
const LEGACY_TYPE: Record<string, string> = { _: 'italic', '*': 'bold', '`': 'code' };

export function parseMarkdownLegacy(src: string): { text: string; entities: TgEntity[] } {
  const n = src.length;
  const out = new Output();
  const unclosed = (at: number): FormatError =>
    new FormatError(`Can't find end of the entity starting at byte offset ${byteOffset(src, at)}`);
  let i = 0;
  while (i < n) {
    const c = src[i];
    if (c === '\\' && i + 1 < n && LEGACY_MARKERS.includes(src[i + 1])) {
      out.add(src[i + 1]);
      i += 2;
      continue;
    }
    if (!LEGACY_MARKERS.includes(c)) {
      let j = i + 1;
      while (j < n && src[j] !== '\\' && !LEGACY_MARKERS.includes(src[j])) j++;
      out.add(src.slice(i, j));
      i = j;
      continue;
    }
    const begin = i;
    if (c === '[') {
      const close = src.indexOf(']', i + 1);
      if (close < 0) throw unclosed(begin);
      const text = src.slice(i + 1, close);
      let url = text;
      i = close + 1;
      if (src[i] === '(') {
        const end = src.indexOf(')', i + 1);
        if (end < 0) throw unclosed(begin);
        url = src.slice(i + 1, end);
        i = end + 1;
      }
      const start = out.length;
      out.add(text);
      const normalized = normalizeUrl(url);
      if (normalized) out.entity({ type: 'text_link', offset: start, length: text.length, url: normalized });
      continue;
    }
    if (src.startsWith('```', i)) {
      const end = src.indexOf('```', i + 3);
      if (end < 0) throw unclosed(begin);
      let body = src.slice(i + 3, end);
      let language: string | undefined;
      const nl = body.indexOf('\n');
      if (nl > 0 && /^[^\s`]+$/.test(body.slice(0, nl))) {
        language = body.slice(0, nl);
        body = body.slice(nl + 1);
      }
      const start = out.length;
      out.add(body);
      out.entity(language ? { type: 'pre', offset: start, length: body.length, language } : { type: 'pre', offset: start, length: body.length });
      i = end + 3;
      continue;
    }
    const end = src.indexOf(c, i + 1);
    if (end < 0) throw unclosed(begin);
    const inner = src.slice(i + 1, end);
    const start = out.length;
    out.add(inner);
    out.entity({ type: LEGACY_TYPE[c], offset: start, length: inner.length });
    i = end + 1;
  }
  return { text: out.text(), entities: sortEntities(out.entities) };
}
