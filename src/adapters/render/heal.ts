/**
 * Healing for intermediate (live) edits: the suffix that makes a Markdown prefix well-formed — closing an
 * unterminated code fence, inline code span and emphasis / strikethrough opened in the trailing paragraph.
 * It only appends (the answer stays verbatim in front of it) and adds nothing to balanced text.
 */
import { closeLine, openFenceAtEnd, scanLines } from './fences';

type Delim = { ch: string; len: number };

const isSpace = (c: string | undefined) => c === undefined || /\s/.test(c);
const isAlnum = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);

/** Text of the trailing paragraph (after the last blank line or fence), where inline markup can still be open. */
function trailingParagraph(text: string): string {
  const lines = scanLines(text);
  for (let k = lines.length - 1; k >= 0; k--) {
    const l = lines[k];
    if (l.blank || l.delimiter || l.fence) return text.slice(l.end + 1 > text.length ? text.length : l.end + 1);
  }
  return text;
}

/** Closers for inline markup left open at the end of `para` (innermost first). */
function inlineClosers(para: string): string {
  const stack: Delim[] = [];
  let i = 0;
  while (i < para.length) {
    const c = para[i];
    if (c === '\\') { i += 2; continue; }
    if (c === '`') {
      let n = 1;
      while (para[i + n] === '`') n++;
      const run = '`'.repeat(n);
      // a code span closes at the next run of exactly n backticks
      let j = i + n;
      let closed = -1;
      while (j < para.length) {
        const k = para.indexOf(run, j);
        if (k === -1) break;
        let m = run.length;
        while (para[k + m] === '`') m++;
        if (m === run.length && para[k - 1] !== '`') { closed = k; break; }
        j = k + m;
      }
      if (closed === -1) return run + stack.reverse().map((d) => d.ch.repeat(d.len)).join('');
      i = closed + n;
      continue;
    }
    if (c === '*' || c === '_' || c === '~') {
      let n = 1;
      while (para[i + n] === c) n++;
      const before = para[i - 1];
      const after = para[i + n];
      if (c === '~' && n < 2) { i += n; continue; }
      const left = !isSpace(after) && !(c === '_' && isAlnum(before));
      const right = !isSpace(before) && !(c === '_' && isAlnum(after));
      let remaining = c === '~' ? 2 : n;
      if (right) {
        // close matching openers from the top of the stack
        while (remaining > 0) {
          const idx = stack.map((d) => d.ch).lastIndexOf(c);
          if (idx === -1) break;
          const d = stack[idx];
          const use = Math.min(d.len, remaining);
          stack.splice(idx);
          if (d.len > use) stack.push({ ch: c, len: d.len - use });
          remaining -= use;
        }
      }
      if (remaining > 0 && left) {
        if (c === '~') stack.push({ ch: '~', len: 2 });
        else {
          if (remaining >= 2) stack.push({ ch: c, len: 2 });
          if (remaining % 2 === 1) stack.push({ ch: c, len: 1 });
        }
      }
      i += n;
      continue;
    }
    i++;
  }
  return stack.reverse().map((d) => d.ch.repeat(d.len)).join('');
}

/** Suffix that closes whatever `markdown` leaves open; '' for balanced text. */
export function healSuffix(markdown: string): string {
  const fence = openFenceAtEnd(markdown);
  if (fence) return `${markdown.endsWith('\n') ? '' : '\n'}${closeLine(fence)}`;
  if (markdown === '' || /\s$/.test(markdown)) return '';
  const closers = inlineClosers(trailingParagraph(markdown));
  // closing a code span on a line of bare backticks would open a fence instead: leave such text alone
  return closers && openFenceAtEnd(markdown + closers) ? '' : closers;
}

export function heal(markdown: string): string {
  return markdown + healSuffix(markdown);
}
