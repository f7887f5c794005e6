/**
 * The merge point of a turn (engine.md §2.3.5): several producers (the model driver, one per running
 * tool) push messages; one consumer takes them in arrival order and the queue ends when every producer
 * has closed and nothing is left. A producer holds back a `stop` partial (and `token_usage`) until its
 * next message with the same origin, then hands both over at once, so a segment's stop and its complete
 * message (and token_usage and request_end) stay adjacent in the merged stream whatever the interleaving.
 */
import type { OmniMessage } from '../omnimessage/types';

export interface QueueItem {
  msg: OmniMessage;
  /** Written to the trace but not yielded to the host (e.g. the `subagent` pointer event). */
  traceOnly?: boolean;
}

function holdable(msg: OmniMessage): boolean {
  if (msg.type !== 'model_msg' && msg.type !== 'event_msg') return false;
  const p = msg.payload as { type: string; event_type?: string };
  return p.event_type === 'stop' || p.type === 'token_usage';
}

const originKey = (m: OmniMessage): string => (m.origin ? m.origin.join('\u0000') : '');

export class MergeQueue {
  private items: QueueItem[] = [];
  private head = 0;
  private producers = 0;
  private wake: (() => void) | null = null;

  /** Register a producer; it must be closed exactly once. */
  open(): Producer {
    this.producers++;
    return new Producer(this);
  }

  /** The next item without waiting: an item, null when finished, undefined when the consumer must wait. */
  take(): QueueItem | null | undefined {
    if (this.head < this.items.length) {
      const item = this.items[this.head++];
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      return item;
    }
    return this.producers === 0 ? null : undefined;
  }

  /** The next item, or null when every producer closed and the queue is drained. */
  async next(): Promise<QueueItem | null> {
    for (;;) {
      const item = this.take();
      if (item !== undefined) return item;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  /** @internal */
  enqueue(items: QueueItem[]): void {
    for (const it of items) this.items.push(it);
    this.signal();
  }

  /** @internal */
  release(): void {
    this.producers--;
    this.signal();
  }

  private signal(): void {
    const w = this.wake;
    if (w) {
      this.wake = null;
      w();
    }
  }
}

export class Producer {
  private readonly held = new Map<string, QueueItem[]>();
  private closed = false;

  constructor(private readonly queue: MergeQueue) {}

  push(msg: OmniMessage, traceOnly = false): void {
    if (this.closed) return;
    const item: QueueItem = traceOnly ? { msg, traceOnly } : { msg };
    const key = originKey(msg);
    const waiting = this.held.get(key);
    if (waiting) {
      waiting.push(item);
      if (holdable(msg)) return;
      this.held.delete(key);
      this.queue.enqueue(waiting);
      return;
    }
    if (holdable(msg)) {
      this.held.set(key, [item]);
      return;
    }
    this.queue.enqueue([item]);
  }

  /** Hand over anything still held and deregister. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const items of this.held.values()) this.queue.enqueue(items);
    this.held.clear();
    this.queue.release();
  }
}
