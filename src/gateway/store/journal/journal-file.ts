/**
 * The journal file (`<PENGUIN_HOME>/gateway-journal.jsonl`, mode 0600): append-only, one entry per line,
 * whole lines per O_APPEND write so the gateway and a CLI command can append at once without interleaving.
 * Appends are serialized and each resolves once its line is written; entries appended while a write is in
 * flight go out together in the next one (a burst of new conversations is a few writes, not one each). The
 * descriptor (O_APPEND) stays open `JOURNAL_HOLD_MS` after the last write, as a trace's does (both on
 * core/held-file-handle.ts), so a burst does not open and close the file for each write. A torn last line
 * left by a crash is closed with a newline before the next append. `read` is tolerant: bad lines are
 * reported with their number.
 */
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HeldFileHandle } from '../../../core/held-file-handle';
import { buildJournalEntrySchema, type JournalEntry } from './entries';

export const JOURNAL_FILE = 'gateway-journal.jsonl';
/** How long the journal's descriptor outlives its last write. */
export const JOURNAL_HOLD_MS = 1000;

export const journalPath = (home: string): string => join(home, JOURNAL_FILE);

export interface JournalRead {
  entries: JournalEntry[];
  problems: { path: string; message: string }[];
}

interface Waiting {
  lines: string;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class JournalFile {
  private waiting: Waiting[] = [];
  private writing = false;
  private checkedTail = false;
  private readonly fh: HeldFileHandle;

  /** `holdMs`: how long the descriptor outlives the last write (default JOURNAL_HOLD_MS). */
  constructor(
    readonly path: string,
    holdMs = JOURNAL_HOLD_MS,
  ) {
    this.fh = new HeldFileHandle(() => open(this.path, 'a', 0o600), holdMs, () => this.writing);
  }

  /** Rejects when the line could not be written (the caller must not report the change as kept). */
  append(entry: JournalEntry): Promise<void> {
    return this.appendAll([entry]);
  }

  /** Several entries in one write, in order: all written, or the call rejects. */
  appendAll(entries: readonly JournalEntry[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ lines: entries.map((e) => `${JSON.stringify(e)}\n`).join(''), resolve, reject });
      if (!this.writing) void this.pump();
    });
  }

  private async pump(): Promise<void> {
    this.writing = true;
    while (this.waiting.length > 0) {
      const batch = this.waiting;
      this.waiting = [];
      try {
        await this.write(batch.map((w) => w.lines).join(''));
        for (const w of batch) w.resolve();
      } catch (err) {
        // A descriptor that failed once is not trusted again: the next write opens the file afresh.
        await this.fh.close();
        for (const w of batch) w.reject(err);
      }
    }
    this.writing = false;
    this.fh.idle();
  }

  private async write(lines: string): Promise<void> {
    let prefix = '';
    if (!this.checkedTail) {
      prefix = (await endsTorn(this.path)) ? '\n' : '';
      this.checkedTail = true;
    }
    await (await this.fh.get()).writeFile(`${prefix}${lines}`);
  }

  async read(): Promise<JournalRead> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], problems: [] };
      return { entries: [], problems: [{ path: this.path, message: `cannot read the journal: ${(e as Error).message}` }] };
    }
    const out: JournalRead = { entries: [], problems: [] };
    const lines = text.split('\n');
    const schema = buildJournalEntrySchema();
    lines.forEach((raw, i) => {
      if (raw.trim() === '') return;
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        // A torn final line is what a crash mid-append leaves: expected, not worth a warning.
        if (i === lines.length - 1) return;
        out.problems.push({ path: this.path, message: `line ${i + 1} is not JSON; skipped` });
        return;
      }
      const r = schema.safeParse(json);
      if (r.success) out.entries.push(r.data);
      else out.problems.push({ path: this.path, message: `line ${i + 1}: ${r.error.issues.map((x) => `${x.path.join('.') || 'entry'}: ${x.message}`).join('; ')}; skipped` });
    });
    return out;
  }
}

async function endsTorn(path: string): Promise<boolean> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch {
    return false;
  }
  try {
    const { size } = await fh.stat();
    if (size === 0) return false;
    const b = Buffer.alloc(1);
    await fh.read(b, 0, 1, size - 1);
    return b[0] !== 0x0a;
  } finally {
    await fh.close();
  }
}
