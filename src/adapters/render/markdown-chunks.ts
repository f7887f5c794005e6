/**
 * Fence-aware Markdown chunking: cuts a text into consecutive source slices whose *decorated* form (a
 * fence reopened at the start, closed at the end, when the cut falls inside a code block) satisfies the
 * caller's `fits` (rendered length below the split target). Cuts prefer, in order: block boundaries
 * (after a blank line or a code block), line ends outside code, line ends inside code, spaces, and only
 * then a hard cut at a code-point boundary. Slices concatenate to the input exactly; a decision depends
 * only on the text up to the farthest point it examined, so earlier chunks stay put as the text grows.
 */
import { closeLine, fenceOpening, reopenLine, scanLines, type Fence, type LineInfo } from './fences';

export interface Chunk {
  start: number;
  end: number;
  /** Fence reopening line put before the slice ('' when the slice starts outside code). */
  prefix: string;
  /** Fence closing put after the slice ('' when it ends outside code). */
  suffix: string;
}

export interface ChunkMemo {
  key: string;
  text: string;
  chunks: Array<Chunk & { basisEnd: number; last: boolean }>;
}

export interface ChunkOptions {
  /** Whether a decorated chunk (prefix + slice + suffix) is small enough to be message `index`. */
  fits(decorated: string, index: number): boolean;
  /** A previous result for the same `fits` (same memoKey), to skip re-deciding unchanged chunks. */
  memo?: ChunkMemo;
  memoKey?: string;
  /** Fill below which a nicer boundary loses to the next class (default 0.5). */
  minFill?: number;
}

export interface ChunkResult {
  chunks: Chunk[];
  memo: ChunkMemo;
}

class Doc {
  readonly lines: LineInfo[];
  constructor(readonly text: string) {
    this.lines = scanLines(text);
  }

  lineIndexAt(p: number): number {
    let lo = 0;
    let hi = this.lines.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lines[mid].start <= p) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  fenceAt(p: number): Fence | null {
    const l = this.lines[this.lineIndexAt(p)];
    if (p === l.start) return l.fence;
    if (l.delimiter && p === l.end) return l.after;
    return l.fence;
  }

  /**
   * Whether a chunk may end at p: not inside a fence delimiter line, not between surrogate halves, and not
   * mid-line where the rest of the line would open a code fence once it starts the next message.
   */
  validCut(p: number): boolean {
    if (p <= 0 || p >= this.text.length) return true;
    const code = this.text.charCodeAt(p - 1);
    if (code >= 0xd800 && code <= 0xdbff) return false;
    const l = this.lines[this.lineIndexAt(p)];
    if (p === l.start) return true;
    if (l.delimiter && p <= l.end) return false;
    return p > l.end || fenceOpening(this.text.slice(p, l.end)) === null;
  }

  /** Largest valid cut ≤ p and > s (p itself when there is none). */
  snap(s: number, p: number): number {
    for (let q = p; q > s; q--) if (this.validCut(q)) return q;
    return p;
  }

  decorate(s: number, e: number): { prefix: string; suffix: string; text: string } {
    const open = this.fenceAt(s);
    const close = this.fenceAt(e);
    const slice = this.text.slice(s, e);
    const prefix = open ? reopenLine(open) : '';
    const body = prefix + slice;
    const suffix = close ? `${body === '' || body.endsWith('\n') ? '' : '\n'}${closeLine(close)}` : '';
    return { prefix, suffix, text: body + suffix };
  }
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

export function chunkMarkdown(text: string, opts: ChunkOptions): ChunkResult {
  const doc = new Doc(text);
  const minFill = opts.minFill ?? 0.5;
  const key = opts.memoKey ?? '';
  const out: ChunkMemo['chunks'] = [];
  let s = 0;
  let index = 0;

  if (opts.memo && opts.memo.key === key) {
    const same = commonPrefix(opts.memo.text, text);
    for (const c of opts.memo.chunks) {
      if (c.last || c.basisEnd > same || c.start !== s) break;
      out.push(c);
      s = c.end;
      index++;
    }
  }

  const fitsAt = (e: number) => opts.fits(doc.decorate(s, e).text, index);

  while (s < text.length || out.length === 0) {
    if (s >= text.length || fitsAt(text.length)) {
      const d = doc.decorate(s, text.length);
      out.push({ start: s, end: text.length, prefix: d.prefix, suffix: d.suffix, basisEnd: text.length, last: true });
      break;
    }
    // gallop then bisect for the largest end that fits
    let lo = s;
    let step = 4096;
    let hi = Math.min(text.length, s + step);
    while (hi < text.length && fitsAt(doc.snap(s, hi))) {
      lo = hi;
      step *= 2;
      hi = Math.min(text.length, s + step);
    }
    let basisEnd = hi;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (fitsAt(doc.snap(s, mid))) lo = mid;
      else hi = mid;
    }
    let hard = lo > s ? doc.snap(s, lo) : s;
    if (hard <= s) {
      // nothing fits: take one code point so the text always makes progress
      const cp = text.codePointAt(s)!;
      hard = s + (cp > 0xffff ? 2 : 1);
    }
    const end = pickCut(doc, s, hard, minFill, fitsAt) ?? hard;
    // the decision also read the whole line around its farthest probe (fence delimiters are whole lines)
    const far = doc.lines[doc.lineIndexAt(Math.max(basisEnd, end))];
    basisEnd = far.end < text.length ? far.end + 1 : text.length + 1;
    const d = doc.decorate(s, end);
    out.push({ start: s, end, prefix: d.prefix, suffix: d.suffix, basisEnd, last: false });
    s = end;
    index++;
  }
  return { chunks: out.map(({ start, end, prefix, suffix }) => ({ start, end, prefix, suffix })), memo: { key, text, chunks: out } };
}

/** Best boundary in (s, hard] by preference class, or undefined for a hard cut. */
function pickCut(doc: Doc, s: number, hard: number, minFill: number, fitsAt: (e: number) => boolean): number | undefined {
  const classes: number[][] = [[], [], [], []];
  const first = doc.lineIndexAt(s);
  const last = doc.lineIndexAt(hard);
  for (let k = first + 1; k <= last; k++) {
    const l = doc.lines[k];
    if (l.start <= s || l.start > hard) continue;
    const prev = doc.lines[k - 1];
    if (l.fence === null) {
      const blockEdge = prev.blank || (prev.delimiter && prev.fence !== null) || (l.delimiter && !prev.blank);
      classes[blockEdge ? 0 : 1].push(l.start);
    } else {
      classes[2].push(l.start);
    }
  }
  for (let p = hard; p > s; p--) {
    if (doc.text[p - 1] === ' ' && doc.snap(s, p) === p) {
      classes[3].push(p);
      break;
    }
  }
  const span = hard - s;
  for (const fill of [minFill, Math.min(minFill, 0.2)]) {
    for (const list of classes) {
      // try the largest few candidates of this class that reach the fill
      let tries = 0;
      for (let i = list.length - 1; i >= 0 && tries < 3; i--) {
        const p = list[i];
        if (p - s < fill * span) break;
        tries++;
        if (fitsAt(p)) return p;
      }
    }
  }
  return undefined;
}
