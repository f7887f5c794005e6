/**
 * Text markers (engine.md §1.9): `[tag]\n…\n[/tag]` blocks inside user/system text. Only the square
 * form is written; the legacy `<tag>…</tag>` form is read forever. Also the `key: value` header lines
 * some blocks start with, and the attachment lines hosts append after user text.
 */

export const MARKER_TAGS = [
  'turn_aborted', 'turn_retried', 'context_summary', 'summary', 'user_steering', 'goal', 'developer_instructions',
  'use_skills', 'scheduled_task', 'background_task_done', 'handoff_from', 'model_switch_from',
] as const;
export type MarkerTag = (typeof MARKER_TAGS)[number];

export interface MarkerBlock {
  tag: string;
  body: string;
  /** Offsets of the whole block (opening tag to end of closing tag) in the source text. */
  start: number;
  end: number;
  legacy: boolean;
}

const TAG_RE = /^[a-z][a-z0-9_]*$/;

export function formatBlock(tag: string, body: string): string {
  if (!TAG_RE.test(tag)) throw new RangeError(`invalid marker tag: ${JSON.stringify(tag)}`);
  return `[${tag}]\n${body}\n[/${tag}]`;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Every block of `tag` (or of any tag when omitted), square and legacy, in text order. Bodies lose one leading and one trailing newline. */
export function findBlocks(text: string, tag?: string): MarkerBlock[] {
  const name = tag ? escapeRe(tag) : '[a-z][a-z0-9_]*';
  const re = new RegExp(`\\[(${name})\\]([\\s\\S]*?)\\[/\\1\\]|<(${name})>([\\s\\S]*?)</\\3>`, 'g');
  const out: MarkerBlock[] = [];
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const legacy = m[1] === undefined;
    const raw = legacy ? m[4] : m[2];
    out.push({ tag: legacy ? m[3] : m[1], body: trimOneNewline(raw), start: m.index, end: m.index + m[0].length, legacy });
  }
  return out;
}

function trimOneNewline(s: string): string {
  let r = s;
  if (r.startsWith('\r\n')) r = r.slice(2);
  else if (r.startsWith('\n')) r = r.slice(1);
  if (r.endsWith('\r\n')) r = r.slice(0, -2);
  else if (r.endsWith('\n')) r = r.slice(0, -1);
  return r;
}

/** The body of the first `tag` block, or undefined. */
export function parseBlock(text: string, tag: string): string | undefined {
  return findBlocks(text, tag)[0]?.body;
}

/** True when the whole text (outer whitespace aside) is exactly one `tag` block. */
export function isWholeBlock(text: string, tag: string): boolean {
  const t = text.trim();
  const blocks = findBlocks(t, tag);
  return blocks.length === 1 && blocks[0].start === 0 && blocks[0].end === t.length;
}

/** The text with every block of `tag` removed (outer whitespace trimmed). */
export function stripBlocks(text: string, tag: string): string {
  const blocks = findBlocks(text, tag);
  let out = '';
  let at = 0;
  for (const b of blocks) {
    out += text.slice(at, b.start);
    at = b.end;
  }
  return (out + text.slice(at)).trim();
}

/** `key: value` lines, in the given order; undefined values are left out. */
export function formatFields(fields: Record<string, string | number | undefined>): string {
  return Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
}

/** Reads leading `key: value` lines up to the first blank line; the rest is the body. */
export function parseFields(body: string): { fields: Record<string, string>; rest: string } {
  const lines = body.split('\n');
  const fields: Record<string, string> = {};
  let i = 0;
  for (; i < lines.length; i++) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*):\s?(.*)$/.exec(lines[i]);
    if (!m) break;
    fields[m[1]] = m[2];
  }
  if (i < lines.length && lines[i] === '') i++;
  return { fields, rest: lines.slice(i).join('\n') };
}

export const attachedImageLine = (pathOrUrl: string) => `[attached image: ${pathOrUrl}]`;
export const attachedFileLine = (absPath: string) => `[attached file: ${absPath}]`;

/** Paths/URLs named by attachment lines in a text. */
export function parseAttachmentLines(text: string): { images: string[]; files: string[] } {
  const images: string[] = [];
  const files: string[] = [];
  for (const m of text.matchAll(/^\[attached (image|file): (.+)\]$/gm)) (m[1] === 'image' ? images : files).push(m[2]);
  return { images, files };
}
