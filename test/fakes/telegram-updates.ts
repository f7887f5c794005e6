/**
 * The bot's pending-update queue with Bot API semantics: sequential `update_id`s; updates stay until
 * confirmed by a later `getUpdates` offset (ids below the offset are dropped forever; a negative offset
 * keeps only the last |offset|); `allowed_updates` filters updates created after it is set (empty or
 * absent = all but chat_member / message_reaction / message_reaction_count). O(1) amortised per update.
 */
import type { TgUpdate } from './telegram-types';

const NOT_BY_DEFAULT = new Set(['chat_member', 'message_reaction', 'message_reaction_count']);

/** The update's type: its one field besides `update_id`. */
export function updateKind(u: TgUpdate): string {
  for (const k of Object.keys(u)) if (k !== 'update_id') return k;
  return 'unknown';
}

export class UpdateQueue {
  private items: TgUpdate[] = [];
  private head = 0;
  private nextId: number;
  private allowed: Set<string> | undefined;
  /** Highest update_id a client has confirmed (or that was dropped by an offset). */
  confirmedUpTo = 0;
  /** Updates never queued because `allowed_updates` excluded them. */
  filteredOut = 0;

  constructor(firstId = 1) {
    this.nextId = firstId;
  }

  /** Assigns the next update_id to a body (the queue does not keep it until `push`). */
  create(body: Omit<TgUpdate, 'update_id'>): TgUpdate {
    return { update_id: this.nextId++, ...body } as TgUpdate;
  }

  setAllowed(list: string[] | undefined): void {
    this.allowed = list && list.length > 0 ? new Set(list) : undefined;
  }

  isAllowed(u: TgUpdate): boolean {
    const kind = updateKind(u);
    return this.allowed ? this.allowed.has(kind) : !NOT_BY_DEFAULT.has(kind);
  }

  /** Queues an update; false when `allowed_updates` filters it out. */
  push(u: TgUpdate): boolean {
    if (!this.isAllowed(u)) {
      this.filteredOut++;
      return false;
    }
    this.items.push(u);
    return true;
  }

  get size(): number {
    return this.items.length - this.head;
  }

  /** Applies a getUpdates `offset`: positive confirms everything below it, negative keeps the last |offset|. */
  applyOffset(offset: number): void {
    if (offset > 0) {
      while (this.head < this.items.length && this.items[this.head].update_id < offset) {
        this.confirmedUpTo = Math.max(this.confirmedUpTo, this.items[this.head].update_id);
        this.head++;
      }
    } else if (offset < 0) {
      while (this.size > -offset) {
        this.confirmedUpTo = Math.max(this.confirmedUpTo, this.items[this.head].update_id);
        this.head++;
      }
    }
    this.compact();
  }

  peek(limit: number): TgUpdate[] {
    return this.items.slice(this.head, this.head + limit);
  }

  /** Removes and returns every queued update (a webhook takes them over). */
  drain(): TgUpdate[] {
    const all = this.items.slice(this.head);
    this.items = [];
    this.head = 0;
    return all;
  }

  /** Puts updates back (from a removed webhook), keeping update_id order. */
  restore(list: TgUpdate[]): void {
    if (list.length === 0) return;
    this.items = [...list, ...this.items.slice(this.head)].sort((a, b) => a.update_id - b.update_id);
    this.head = 0;
  }

  clear(): void {
    const last = this.items[this.items.length - 1];
    if (last) this.confirmedUpTo = Math.max(this.confirmedUpTo, last.update_id);
    this.items = [];
    this.head = 0;
  }

  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
