/**
 * A file descriptor opened at first use and held while writes keep coming: `get()` opens it (or gives the
 * open one), `idle()` after a write (re-)arms one unref'd timer that closes it `holdMs` later unless `busy()`
 * says a write is under way, and `close()` closes it now (a descriptor whose write failed is not trusted
 * again: the next `get()` opens afresh). A burst of appends opens the file once; an idle writer pins nothing.
 * Callers serialize their writes (one `get()` at a time), as the trace writer and the journal do.
 */
import type { FileHandle } from 'node:fs/promises';

export class HeldFileHandle {
  private fh?: FileHandle;
  private closer?: NodeJS.Timeout;

  /** `holdMs` 0 closes the descriptor as soon as the writer is idle. */
  constructor(
    private readonly open: () => Promise<FileHandle>,
    private readonly holdMs: number,
    private readonly busy: () => boolean,
  ) {}

  get isOpen(): boolean {
    return this.fh !== undefined;
  }

  async get(): Promise<FileHandle> {
    return (this.fh ??= await this.open());
  }

  /** The writer has nothing more to write for now: the descriptor goes unless a write comes within `holdMs`. */
  idle(): void {
    if (!this.fh) return;
    if (this.holdMs <= 0) {
      void this.close();
      return;
    }
    if (this.closer) this.closer.refresh();
    else {
      this.closer = setTimeout(() => {
        this.closer = undefined;
        if (!this.busy()) void this.close();
      }, this.holdMs);
      this.closer.unref();
    }
  }

  async close(): Promise<void> {
    if (this.closer) clearTimeout(this.closer);
    this.closer = undefined;
    const fh = this.fh;
    this.fh = undefined;
    await fh?.close().catch(() => undefined);
  }
}
