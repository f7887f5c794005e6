/**
 * Line-based unified diffs over jsdiff, shared by the file tools' reports (3 lines of context, `---`/`+++`
 * labels) and the approval-card preview (hunks only). A missing final newline is not a difference and gets
 * no marker; CR stays part of a line. The search is bounded by edit length and time so an unrelated rewrite
 * or pathological input cannot stall the process: past the bound the diff is "all removed, then all added".
 * jsdiff is required at the first diff, not when a chat adapter that may preview one is loaded.
 */
import type * as Jsdiff from 'diff';
import type { StructuredPatch } from 'diff';

let loaded: typeof Jsdiff | undefined;
const jsdiff = (): typeof Jsdiff => (loaded ??= require('diff') as typeof Jsdiff);

type Op = { t: ' ' | '-' | '+'; line: string };

// Beyond ~1000 changed lines a line-by-line diff reads no better than the wholesale one; the timeout is a
// backstop for inputs with many short matching runs, where each search step is costly.
const SEARCH_BOUND = { maxEditLength: 1000, timeout: 200 };

export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

const wholesale = (a: string[], b: string[]): Op[] => [
  ...a.map((line): Op => ({ t: '-', line })),
  ...b.map((line): Op => ({ t: '+', line })),
];

/** Per-line edit script from `a` to `b`. */
export function diffLines(a: string[], b: string[]): Op[] {
  const changes = jsdiff().diffArrays(a, b, SEARCH_BOUND);
  if (!changes) return wholesale(a, b);
  return changes.flatMap((c) => c.value.map((line): Op => ({ t: c.added ? '+' : c.removed ? '-' : ' ', line })));
}

const withFinalNewline = (text: string): string => (text === '' || text.endsWith('\n') ? text : `${text}\n`);

/** The bounded search's fallback: one hunk replacing every old line with every new one. */
function wholesalePatch(oldText: string, newText: string): StructuredPatch {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  const lines = wholesale(a, b).map((o) => o.t + o.line);
  const hunk = { oldStart: 1, oldLines: a.length, newStart: 1, newLines: b.length, lines };
  return { oldFileName: undefined, newFileName: undefined, oldHeader: undefined, newHeader: undefined, hunks: [hunk] };
}

/** Hunk headers and ±/space lines, no file header ('' when the texts have the same lines). */
export function unifiedHunks(oldText: string, newText: string, context: number): string {
  const options = { context, ...SEARCH_BOUND };
  const patch =
    jsdiff().structuredPatch('', '', withFinalNewline(oldText), withFinalNewline(newText), undefined, undefined, options) ??
    wholesalePatch(oldText, newText);
  return patch.hunks.length === 0 ? '' : jsdiff().formatPatch(patch, jsdiff().OMIT_HEADERS).slice(0, -1);
}

/**
 * Unified diff text with `--- oldLabel` / `+++ newLabel` ('' when the texts have the same lines). The labels are
 * written as given: jsdiff's own file headers would C-quote non-ASCII paths.
 */
export function unifiedDiff(oldText: string, newText: string, oldLabel: string, newLabel: string, context = 3): string {
  const hunks = unifiedHunks(oldText, newText, context);
  return hunks && `--- ${oldLabel}\n+++ ${newLabel}\n${hunks}`;
}
