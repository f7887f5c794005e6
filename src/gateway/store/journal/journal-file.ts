/**
 * The journal file (`<PENGUIN_HOME>/gateway-journal.jsonl`, mode 0600): append-only, one entry per line,
 * each entry one O_APPEND write so the gateway and a CLI command can append at once without interleaving.
 * Appends are serialized and resolve once the line is written; a torn last line left by a crash is closed
 * with a newline before the next append. `read` is tolerant: bad lines are reported with their number.
 */
import { appendFile, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { JournalEntrySchema, type JournalEntry } from './entries';

export const JOURNAL_FILE = 'gateway-journal.jsonl';

export const journalPath = (home: string): string => join(home, JOURNAL_FILE);

export interface JournalRead {
  entries: JournalEntry[];
  problems: { path: string; message: string }[];
}

export class JournalFile {
  private tail: Promise<void> = Promise.resolve();
  private checkedTail = false;

  constructor(readonly path: string) {}

  /** Rejects when the line could not be written (the caller must not report the change as kept). */
  append(entry: JournalEntry): Promise<void> {
    const run = this.tail.then(() => this.write(entry));
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async write(entry: JournalEntry): Promise<void> {
    let prefix = '';
    if (!this.checkedTail) {
      prefix = (await endsTorn(this.path)) ? '\n' : '';
      this.checkedTail = true;
    }
    await appendFile(this.path, `${prefix}${JSON.stringify(entry)}\n`, { mode: 0o600 });
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
      const r = JournalEntrySchema.safeParse(json);
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
