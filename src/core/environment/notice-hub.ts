/**
 * Fans background completion reports (engine.md §2.8) out to subscribers. Reports that arrive while
 * nobody listens are kept (at most 64, oldest dropped) and handed to the next subscriber, so a report
 * is not lost between a run ending and the host subscribing.
 */
import type { BackgroundNotice } from '../interfaces';

const MAX_HELD = 64;

export class NoticeHub {
  private readonly listeners = new Set<(n: BackgroundNotice) => void>();
  private held: BackgroundNotice[] = [];

  emit = (notice: BackgroundNotice): void => {
    if (this.listeners.size === 0) {
      this.held.push(notice);
      if (this.held.length > MAX_HELD) this.held.shift();
      return;
    }
    for (const l of [...this.listeners]) {
      try {
        l(notice);
      } catch {
        // A failing listener must not stop the others or the producer.
      }
    }
  };

  subscribe(listener: (n: BackgroundNotice) => void): () => void {
    this.listeners.add(listener);
    const held = this.held;
    this.held = [];
    for (const n of held) this.emit(n);
    return () => {
      this.listeners.delete(listener);
    };
  }
}
