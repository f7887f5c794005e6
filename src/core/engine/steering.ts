/**
 * The steering queue (engine.md §2.7): open only while a Task runs; each entry becomes one user text that
 * is exactly one `[user_steering]` block, followed by its images (vision models) or with
 * `[attached image: …]` lines inside the block (text-only models). `remove` recalls an undelivered entry;
 * `close` discards whatever the run did not deliver.
 */
import { randomBytes } from 'node:crypto';
import * as b from '../omnimessage/builders';
import { attachedImageLine, formatBlock } from '../omnimessage/markers';
import type { OmniMessage } from '../omnimessage/types';

interface Entry {
  id: string;
  text: string;
  images: string[];
}

export class SteeringQueue {
  private entries: Entry[] = [];
  private isOpen = false;

  open(): void {
    this.isOpen = true;
    this.entries = [];
  }

  close(): void {
    this.isOpen = false;
    this.entries = [];
  }

  get accepting(): boolean {
    return this.isOpen;
  }

  get size(): number {
    return this.entries.length;
  }

  /** Queue one entry; its id, or false when no Task runs. */
  push(text: string, images: string[] = []): string | false {
    if (!this.isOpen) return false;
    const id = `steer-${randomBytes(4).toString('hex')}`;
    this.entries.push({ id, text, images: [...images] });
    return id;
  }

  remove(id: string): boolean {
    const i = this.entries.findIndex((e) => e.id === id);
    if (i < 0) return false;
    this.entries.splice(i, 1);
    return true;
  }

  /** Take every queued entry as messages, in arrival order. */
  drain(vision: boolean): OmniMessage[] {
    const taken = this.entries;
    this.entries = [];
    const out: OmniMessage[] = [];
    for (const e of taken) {
      if (vision) {
        out.push(b.userText(formatBlock('user_steering', e.text)));
        for (const img of e.images) out.push(b.imageUrl(img));
      } else {
        const lines = e.images.map(attachedImageLine);
        const body = [e.text, ...lines].filter((s) => s !== '').join('\n');
        out.push(b.userText(formatBlock('user_steering', body)));
      }
    }
    return out;
  }
}
