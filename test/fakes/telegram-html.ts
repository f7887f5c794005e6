/**
 * `parse_mode: "HTML"` as Telegram applies it: the supported tag set (b strong i em u ins s strike del
 * tg-spoiler span.tg-spoiler a code pre blockquote[expandable] tg-emoji), the entities &lt; &gt; &amp; &quot;
 * and numeric ones, strict tag balancing, and Telegram's error wording with UTF-8 byte offsets.
 * Output: the visible text and its entities in UTF-16 offsets. Throws FormatError on bad markup.
 */
import { byteOffset, FormatError, normalizeUrl, sortEntities } from './telegram-entities';
import type { TgEntity } from './telegram-types';

const TAGS = new Set([
  'a', 'b', 'strong', 'i', 'em', 's', 'strike', 'del', 'u', 'ins', 'tg-spoiler', 'tg-emoji', 'span', 'pre', 'code',
  'blockquote',
]);
const SIMPLE: Record<string, string> = {
  b: 'bold', strong: 'bold', i: 'italic', em: 'italic', u: 'underline', ins: 'underline',
  s: 'strikethrough', strike: 'strikethrough', del: 'strikethrough', 'tg-spoiler': 'spoiler', span: 'spoiler',
  code: 'code',
};
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };
const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isTokenChar = (c: string): boolean => /[A-Za-z0-9.-]/.test(c);

interface OpenTag {
  tag: string;
  start: number;
  attrs: Map<string, string>;
  expandable: boolean;
  /** Set by a `<code class="language-x">` spanning exactly this `<pre>`'s content. */
  codeLanguage?: { language: string; end: number };
}

/** Decodes one `&...` reference at `at`; returns the text it stands for and the index after it. */
function decodeReference(src: string, at: number): [string, number] {
  let j = at + 1;
  if (src[j] === '#') {
    j++;
    const hex = src[j] === 'x' || src[j] === 'X';
    if (hex) j++;
    const digitsStart = j;
    while (j < src.length && (hex ? /[0-9a-fA-F]/ : /[0-9]/).test(src[j])) j++;
    if (j === digitsStart) return ['&', at + 1];
    const code = parseInt(src.slice(digitsStart, j), hex ? 16 : 10);
    if (code === 0 || code > 0x10ffff) return ['&', at + 1];
    if (code >= 0xd800 && code <= 0xdfff) {
      throw new FormatError(
        'Text contains invalid Unicode characters after decoding HTML entities, check for unmatched surrogate code units',
      );
    }
    if (src[j] === ';') j++;
    return [String.fromCodePoint(code), j];
  }
  while (j < src.length && /[A-Za-z]/.test(src[j])) j++;
  const decoded = NAMED[src.slice(at + 1, j)];
  if (decoded === undefined) return ['&', at + 1];
  if (src[j] === ';') j++;
  return [decoded, j];
}

function decodeAll(s: string): string {
  let out = '';
  let i = 0;
  while (i < s.length) {
    if (s[i] === '&') {
      const [text, next] = decodeReference(s, i);
      out += text;
      i = next;
    } else {
      out += s[i++];
    }
  }
  return out;
}

export function parseHtml(src: string): { text: string; entities: TgEntity[] } {
  const n = src.length;
  const bo = (i: number): number => byteOffset(src, i);
  const parts: string[] = [];
  let outLen = 0;
  const emit = (s: string): void => {
    parts.push(s);
    outLen += s.length;
  };
  const open: OpenTag[] = [];
  const entities: TgEntity[] = [];
  let i = 0;
  while (i < n) {
    const c = src[i];
    if (c !== '<' && c !== '&') {
      let j = i + 1;
      while (j < n && src[j] !== '<' && src[j] !== '&') j++;
      emit(src.slice(i, j));
      i = j;
      continue;
    }
    if (c === '&') {
      const [text, next] = decodeReference(src, i);
      emit(text);
      i = next;
      continue;
    }
    const begin = i;
    i++;
    if (src[i] !== '/') {
      let j = i;
      while (j < n && !isSpace(src[j]) && src[j] !== '>') j++;
      if (j >= n) throw new FormatError(`Unclosed start tag at byte offset ${bo(begin)}`);
      const tag = src.slice(i, j).toLowerCase();
      if (!TAGS.has(tag)) throw new FormatError(`Unsupported start tag "${tag}" at byte offset ${bo(begin)}`);
      i = j;
      const attrs = new Map<string, string>();
      let expandable = false;
      for (;;) {
        while (i < n && isSpace(src[i])) i++;
        if (i >= n) throw new FormatError(`Unclosed start tag "${tag}" at byte offset ${bo(begin)}`);
        if (src[i] === '>') break;
        const nameStart = i;
        while (i < n && !isSpace(src[i]) && src[i] !== '=' && src[i] !== '>') i++;
        const name = src.slice(nameStart, i).toLowerCase();
        if (name === '') throw new FormatError(`Empty attribute name in the tag "${tag}" at byte offset ${bo(begin)}`);
        while (i < n && isSpace(src[i])) i++;
        if (i >= n) throw new FormatError(`Unclosed start tag "${tag}" at byte offset ${bo(begin)}`);
        if (src[i] !== '=') {
          if (tag === 'blockquote' && name === 'expandable') {
            expandable = true;
            continue;
          }
          throw new FormatError(
            `Expected equal sign in declaration of an attribute of the tag "${tag}" at byte offset ${bo(begin)}`,
          );
        }
        i++;
        while (i < n && isSpace(src[i])) i++;
        if (i >= n) throw new FormatError(`Unclosed start tag "${tag}" at byte offset ${bo(begin)}`);
        let value: string;
        if (src[i] === '"' || src[i] === "'") {
          const end = src.indexOf(src[i], i + 1);
          if (end < 0) throw new FormatError(`Unclosed start tag at byte offset ${bo(begin)}`);
          value = decodeAll(src.slice(i + 1, end));
          i = end + 1;
        } else {
          const valueStart = i;
          while (i < n && isTokenChar(src[i])) i++;
          if (i >= n) throw new FormatError(`Unclosed start tag "${tag}" at byte offset ${bo(begin)}`);
          if (!isSpace(src[i]) && src[i] !== '>') {
            throw new FormatError(`Unexpected end of name token at byte offset ${bo(valueStart)}`);
          }
          value = src.slice(valueStart, i);
        }
        attrs.set(name, value);
      }
      i++;
      if (tag === 'span' && attrs.get('class') !== 'tg-spoiler') {
        throw new FormatError(`Tag "span" must have class "tg-spoiler" at byte offset ${bo(begin)}`);
      }
      open.push({ tag, start: outLen, attrs, expandable });
      continue;
    }
    if (open.length === 0) throw new FormatError(`Unexpected end tag at byte offset ${bo(begin)}`);
    i++;
    let j = i;
    while (j < n && !isSpace(src[j]) && src[j] !== '>') j++;
    const name = src.slice(i, j).toLowerCase();
    while (j < n && isSpace(src[j])) j++;
    if (j >= n || src[j] !== '>') throw new FormatError(`Unclosed end tag at byte offset ${bo(begin)}`);
    const top = open[open.length - 1];
    if (name !== '' && name !== top.tag) {
      throw new FormatError(`Unmatched end tag at byte offset ${bo(begin)}, expected "</${top.tag}>", found "</${name}>"`);
    }
    i = j + 1;
    open.pop();
    closeTag(top, outLen, open[open.length - 1], entities, parts);
  }
  if (open.length > 0) {
    throw new FormatError(`Can't find end tag corresponding to start tag "${open[open.length - 1].tag}"`);
  }
  return { text: parts.join(''), entities: sortEntities(entities) };
}

function closeTag(tag: OpenTag, end: number, parent: OpenTag | undefined, entities: TgEntity[], parts: string[]): void {
  const length = end - tag.start;
  if (length <= 0) return;
  const base = { offset: tag.start, length };
  if (tag.tag === 'code') {
    const cls = tag.attrs.get('class') ?? '';
    const language = cls.startsWith('language-') ? cls.slice('language-'.length) : '';
    if (language !== '' && parent?.tag === 'pre' && parent.start === tag.start) {
      parent.codeLanguage = { language, end };
      return;
    }
    entities.push({ type: 'code', ...base });
    return;
  }
  if (tag.tag in SIMPLE) {
    entities.push({ type: SIMPLE[tag.tag], ...base });
    return;
  }
  switch (tag.tag) {
    case 'pre':
      if (tag.codeLanguage && tag.codeLanguage.end === end) {
        entities.push({ type: 'pre', ...base, language: tag.codeLanguage.language });
      } else {
        entities.push({ type: 'pre', ...base });
        if (tag.codeLanguage) entities.push({ type: 'code', offset: tag.start, length: tag.codeLanguage.end - tag.start });
      }
      return;
    case 'blockquote':
      entities.push({ type: tag.expandable ? 'expandable_blockquote' : 'blockquote', ...base });
      return;
    case 'tg-emoji': {
      const id = tag.attrs.get('emoji-id');
      if (id) entities.push({ type: 'custom_emoji', ...base, custom_emoji_id: id });
      return;
    }
    case 'a': {
      const href = tag.attrs.get('href');
      const url = normalizeUrl(href ?? innerText(parts, tag.start, end));
      if (url) entities.push({ type: 'text_link', ...base, url });
      return;
    }
  }
}

/** The visible text between two UTF-16 offsets of the output built so far. */
function innerText(parts: string[], start: number, end: number): string {
  return parts.join('').slice(start, end);
}
