/**
 * Fenced-code-block tracking by CommonMark's line rules (an opening line of ≥3 backticks or tildes with
 * ≤3 spaces indent, closed by a line of the same character at least as long): the one piece of Markdown
 * structure splitting must respect, since a chunk boundary inside a fence needs a close and a reopen.
 */

export interface Fence {
  indent: string;
  /** The opening run, e.g. "```" or "~~~~". */
  marker: string;
  /** Info string after the marker (language), verbatim. */
  info: string;
}

export interface LineInfo {
  start: number;
  /** Index of the terminating "\n", or text.length for the last line. */
  end: number;
  /** Fence open at the start of this line (null = outside any fence). */
  fence: Fence | null;
  /** This line opens or closes a fence. */
  /** Fence open after this line (for the last line of unterminated text, as CommonMark reads it). */
  after: Fence | null;
  delimiter: boolean;
  blank: boolean;
}

const OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/;
const CLOSE = /^( {0,3})(`{3,}|~{3,})[ \t]*$/;

export function fenceOpening(line: string): Fence | null {
  const m = OPEN.exec(line);
  if (!m) return null;
  if (m[2][0] === '`' && m[3].includes('`')) return null;
  return { indent: m[1], marker: m[2], info: m[3] };
}

export function closesFence(line: string, fence: Fence): boolean {
  const m = CLOSE.exec(line);
  return !!m && m[2][0] === fence.marker[0] && m[2].length >= fence.marker.length;
}

/** Per-line fence state of `text`. */
export function scanLines(text: string): LineInfo[] {
  const out: LineInfo[] = [];
  let fence: Fence | null = null;
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    const end = nl === -1 ? text.length : nl;
    const line = text.slice(start, end);
    const info: LineInfo = { start, end, fence, after: null, delimiter: false, blank: line.trim() === '' };
    if (fence) {
      if (closesFence(line, fence)) {
        info.delimiter = true;
        fence = null;
      }
    } else {
      const open = fenceOpening(line);
      if (open) {
        info.delimiter = true;
        fence = open;
      }
    }
    info.after = fence;
    out.push(info);
    if (nl === -1) break;
    start = nl + 1;
  }
  return out;
}

/** The fence open after the whole of `text` (null when balanced). */
export function openFenceAtEnd(text: string): Fence | null {
  const lines = scanLines(text);
  return lines[lines.length - 1].after;
}

export const reopenLine = (f: Fence): string => `${f.indent}${f.marker}${f.info}\n`;
export const closeLine = (f: Fence): string => `${f.indent}${f.marker}`;
