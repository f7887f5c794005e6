/**
 * Keeps the full text of one tool output (bounded: head and tail beyond the archive limit) and writes
 * it to `<scratchpad>/truncated-tool-output/` when the output was truncated (engine.md §4.2). Returns the
 * note the model sees: archived / archived with head and tail kept / archive failed with the error code.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ARCHIVE_DIR_NAME, ARCHIVE_MAX_BYTES } from './limits';

/** Chars kept at each end once the text outgrows the archive (UTF-8 never takes fewer bytes than chars). */
const KEEP_CHARS = ARCHIVE_MAX_BYTES;

export class OutputRecorder {
  private head = '';
  private tailChunks: string[] = [];
  private tailLength = 0;
  private droppedChars = 0;

  append(text: string): void {
    if (this.tailChunks.length === 0) {
      const room = KEEP_CHARS - this.head.length;
      if (text.length <= room) {
        this.head += text;
        return;
      }
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    this.tailChunks.push(text);
    this.tailLength += text.length;
    while (this.tailChunks.length > 1 && this.tailLength - this.tailChunks[0].length >= KEEP_CHARS) {
      const dropped = this.tailChunks.shift() as string;
      this.tailLength -= dropped.length;
      this.droppedChars += dropped.length;
    }
  }

  /** The archive body (≤ ARCHIVE_MAX_BYTES) and whether the middle had to be dropped. */
  render(): { body: string; cut: boolean } {
    const joined = this.head + this.tailChunks.join('');
    if (this.droppedChars === 0 && Buffer.byteLength(joined) <= ARCHIVE_MAX_BYTES) return { body: joined, cut: false };
    const marker = '\n[... middle of the output omitted: archive limit is 8 MiB ...]\n';
    const budget = ARCHIVE_MAX_BYTES - Buffer.byteLength(marker);
    const half = Math.floor(budget / 2);
    // The retained tail always holds at least `half` bytes once anything was dropped, so the suffix never spans the gap.
    return { body: utf8Prefix(this.head, half) + marker + utf8Suffix(joined, budget - half), cut: true };
  }
}

/** Longest prefix of `text` that fits `maxBytes` of UTF-8 without splitting a character. */
export function utf8Prefix(text: string, maxBytes: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return text;
  let cut = maxBytes;
  while (cut > 0 && (buf[cut] & 0xc0) === 0x80) cut--;
  return buf.subarray(0, cut).toString('utf8');
}

/** Longest suffix of `text` that fits `maxBytes` of UTF-8 without splitting a character. */
export function utf8Suffix(text: string, maxBytes: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return text;
  let start = buf.length - maxBytes;
  while (start < buf.length && (buf[start] & 0xc0) === 0x80) start++;
  return buf.subarray(start).toString('utf8');
}

function safeName(toolCallId: string): string {
  const s = toolCallId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100);
  return s || 'tool-output';
}

/** Write the recorded output; never throws. */
export async function archiveOutput(scratchpadDir: string, toolCallId: string, recorder: OutputRecorder): Promise<string> {
  try {
    const dir = path.join(scratchpadDir, ARCHIVE_DIR_NAME);
    await fs.mkdir(dir, { recursive: true });
    const { body, cut } = recorder.render();
    const base = safeName(toolCallId);
    for (let n = 1; ; n++) {
      const file = path.join(dir, n === 1 ? `${base}.txt` : `${base}-${n}.txt`);
      try {
        await fs.writeFile(file, body, { flag: 'wx' });
        return cut ? `[output archived (8 MiB limit; head and tail kept): ${file}]` : `[output archived: ${file}]`;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 1000) throw err;
      }
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
    return `[output archive failed: ${code}]`;
  }
}
