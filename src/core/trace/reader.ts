/**
 * Tolerant trace reader (engine.md §5 resume steps 1–2): a truncated last line is dropped, bad middle
 * lines are skipped and counted, and a file that is missing, empty or does not start with `session_meta`
 * comes back as a typed error, never an exception.
 */
import { readFile } from 'node:fs/promises';
import { parseOmniMessage } from '../omnimessage/guards';
import type { OmniMessage, SessionMetaMessage } from '../omnimessage/types';
import { listTraceFiles } from './paths';

export type TraceReadErrorCode = 'not_found' | 'empty' | 'no_session_meta' | 'io';
export interface TraceReadError {
  code: TraceReadErrorCode;
  message: string;
  path?: string;
}
export interface TraceFile {
  path: string;
  index: number;
  meta: SessionMetaMessage;
  /** Every valid record after the head `session_meta`. */
  messages: OmniMessage[];
  /** Bad lines skipped (not counting a torn last line). */
  skipped: number;
  /** The last line was cut off (a crash mid-write) and was dropped. */
  truncatedTail: boolean;
}
export type TraceReadResult = { ok: true; file: TraceFile } | { ok: false; error: TraceReadError };

/** One trace line as a record, or undefined when it is not valid JSON or not an OmniMessage. */
export function parseTraceLine(line: string): OmniMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const parsed = parseOmniMessage(value);
  return parsed.ok ? parsed.message : undefined;
}

/** Parse trace text; exported for tests and for callers that already hold the bytes. */
export function parseTraceText(text: string, path = '<memory>', index = 1): TraceReadResult {
  if (text.trim() === '') return { ok: false, error: { code: 'empty', message: `trace file is empty: ${path}`, path } };
  const lines = text.split('\n');
  const endsClean = text.endsWith('\n');
  if (endsClean) lines.pop();
  let skipped = 0;
  let truncatedTail = false;
  const records: OmniMessage[] = [];
  lines.forEach((line, i) => {
    const isLast = i === lines.length - 1;
    if (line.trim() === '') return;
    const record = parseTraceLine(line);
    if (record) records.push(record);
    else if (isLast && !endsClean) truncatedTail = true;
    else skipped++;
  });
  const head = records[0];
  if (!head || head.type !== 'session_meta') {
    const found = head ? `found ${head.type} (${head.payload.type})` : 'no valid record';
    return { ok: false, error: { code: 'no_session_meta', message: `trace does not start with session_meta (${found}): ${path}`, path } };
  }
  return { ok: true, file: { path, index, meta: head, messages: records.slice(1), skipped, truncatedTail } };
}

export async function readTraceFile(path: string, index = 1): Promise<TraceReadResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT') return { ok: false, error: { code: 'not_found', message: `no trace file at ${path}`, path } };
    return { ok: false, error: { code: 'io', message: `cannot read ${path}: ${err.message}`, path } };
  }
  return parseTraceText(text, path, index);
}

/** The latest-index file of a session: the one resume replays. */
export async function readLatestTrace(tracesDir: string, sessionId: string): Promise<TraceReadResult> {
  const files = await listTraceFiles(tracesDir, sessionId);
  const last = files.at(-1);
  if (!last) return { ok: false, error: { code: 'not_found', message: `no trace files for ${sessionId} under ${tracesDir}` } };
  return readTraceFile(last.path, last.index);
}

/** Every file of a session in order (transcript views); files that fail to read are reported, not thrown. */
export async function readAllTraces(tracesDir: string, sessionId: string): Promise<{ files: TraceFile[]; errors: TraceReadError[] }> {
  const files: TraceFile[] = [];
  const errors: TraceReadError[] = [];
  for (const f of await listTraceFiles(tracesDir, sessionId)) {
    const r = await readTraceFile(f.path, f.index);
    if (r.ok) files.push(r.file);
    else errors.push(r.error);
  }
  return { files, errors };
}
