/**
 * How one snapshot of a live reply lays out over messages (gateway.md §4): the answer chunked below the
 * split target (fences closed and reopened), the tool lines on the first message, the status line only on
 * the last one (a part that is no longer last is complete and carries no live status), the footer under
 * the last answer part, live text healed. Pure: the writer calls it with its state and sends the result.
 */
import type { PlatformLimits } from '../contract/limits';
import type { OutboundContent } from '../contract/surface';
import { healSuffix } from './heal';
import type { ReplySnapshot } from './live-reply';
import { chunkMarkdown, type ChunkMemo } from './markdown-chunks';

export interface Planned {
  content: OutboundContent;
  /** Tool lines + reopened fence + answer slice: what an append stream may extend (the status is not in it). */
  streamBody: string;
}

export interface PlanContext {
  limits: PlatformLimits;
  measure: (markdown: string) => number;
  /** Fraction of the split target in use (lowered after a "too long" answer). */
  scale: number;
  /** Room kept in the first message for the tool lines. */
  headerReserve: number;
  /** Whether part `i` is sent unformatted (after the platform refused its markup). */
  plainAt: (i: number) => boolean;
  memo?: ChunkMemo;
}

export interface Plan {
  parts: Planned[];
  memo: ChunkMemo;
  /** Answer length at which the last part outgrows its capacity (roll to a new message). */
  rollAt: number;
}

const HEAL_MARGIN = 16;

function capacity(c: PlanContext, index: number): number {
  const base = Math.floor(c.limits.splitTarget * c.scale) - HEAL_MARGIN;
  return index === 0 ? base - c.headerReserve - 2 : base;
}

/**
 * The status line and footer go on the last part in the room between its text and the hard limit (the
 * split target keeps ≥ ~100 characters of it free), so reserving them in every part would split sooner.
 */
function fitLastLines(status: string, footer: string, used: number, c: PlanContext): { status: string; footer: string } {
  let room = Math.floor(c.limits.maxChars * c.scale) - used - 4;
  const f = fitLine(footer, Math.max(0, room), c.measure);
  if (f) room -= c.measure(f) + 2;
  const st = fitLine(status, Math.max(0, room), c.measure);
  return { status: room > 0 ? st : '', footer: f };
}

/** One line cut to `room` (rendered), with an ellipsis. */
export function fitLine(line: string, room: number, measure: (md: string) => number): string {
  if (line === '' || measure(line) <= room) return line;
  return [...line].slice(0, Math.max(1, room - 1)).join('') + '…';
}

/** The tool lines, shortened to their reserve: the first line, then as many of the latest lines as fit. */
export function fitHeader(header: string, reserve: number, measure: (md: string) => number): string {
  if (header === '' || measure(header) <= reserve) return header;
  const lines = header.split('\n');
  const kept: string[] = [];
  for (let i = lines.length - 1; i >= 1; i--) {
    const candidate = [lines[0], '…', lines[i], ...kept].join('\n');
    if (measure(candidate) > reserve) break;
    kept.unshift(lines[i]);
  }
  const out = kept.length === lines.length - 1 ? header : [lines[0], '…', ...kept].join('\n');
  return measure(out) <= reserve ? out : fitLine(lines[0], reserve, measure);
}

const joinNonEmpty = (sep: string, ...xs: string[]) => xs.filter((x) => x !== '').join(sep);

export function planReply(snapshot: ReplySnapshot, final: boolean, c: PlanContext): Plan {
  const { header, answer, buttons } = snapshot;
  const res = chunkMarkdown(answer, { fits: (md, i) => c.measure(md) <= capacity(c, i), memo: c.memo, memoKey: `${c.scale}` });
  const chunks = res.chunks;
  const head = fitHeader(header, c.headerReserve, c.measure);
  const parts = chunks.map((ch, i): Planned => {
    const isLast = i === chunks.length - 1;
    const h = i === 0 ? head : '';
    const slice = answer.slice(ch.start, ch.end);
    const body = ch.prefix + slice + ch.suffix + (!final && isLast ? healSuffix(ch.prefix + slice + ch.suffix) : '');
    const lines = isLast ? fitLastLines(snapshot.status ?? '', snapshot.footer ?? '', c.measure(joinNonEmpty('\n\n', h, body)), c) : { status: '', footer: '' };
    const st = lines.status;
    const top = joinNonEmpty('\n', st, h);
    const lead = top !== '' && body !== '' ? `${top}\n\n` : top;
    let text = joinNonEmpty('\n\n', lead + body, lines.footer);
    if (text === '') text = '…';
    const content: OutboundContent = {
      text,
      header: h,
      answer: slice,
      answerOffset: text === '…' ? 0 : lead.length + ch.prefix.length,
      ...(st ? { status: st } : {}),
      ...(isLast && buttons?.length ? { buttons } : {}),
      plain: c.plainAt(i),
      // a part that is no longer the last one is complete: render it fully now, so the end adds no edit
      final: final || !isLast,
      part: i,
    };
    const hb = h !== '' && body !== '' ? `${h}\n\n` : h;
    return { content, streamBody: hb + ch.prefix + slice };
  });
  const last = chunks[chunks.length - 1];
  const room = capacity(c, chunks.length - 1) - c.measure(last.prefix + answer.slice(last.start, last.end) + last.suffix);
  // each source character adds at most about one rendered one
  return { parts, memo: res.memo, rollAt: answer.length + Math.max(1, room) };
}

/** The text a part shows without its live status line (what a finalised part keeps). */
export function withoutStatus(content: OutboundContent): string {
  const st = content.status;
  if (!st || !content.text.startsWith(st)) return content.text;
  return content.text.slice(st.length).replace(/^\n{1,2}/, '') || '…';
}
