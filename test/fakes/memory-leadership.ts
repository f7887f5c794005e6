/**
 * MemoryLocks: the `Leadership` contract in memory, as the PostgreSQL advisory lock behaves for several
 * instances: one holder per name, waiters lead in turn once it is free, `release()` frees it (or stops
 * waiting, rejecting `acquire`), and `drop(name)` is the holder's lock connection dying: it is told once
 * through `onLost` and the next waiter leads. `for(instance)` is one instance's `LeadershipFor`.
 */
import type { Leadership, LeadershipFor } from '../../src/adapters/contract/leadership';

interface Claim {
  instance: string;
  onLost: () => void;
  resolve(): void;
  reject(err: Error): void;
}

export class MemoryLocks {
  private readonly holders = new Map<string, Claim>();
  private readonly waiting = new Map<string, Claim[]>();

  for(instance: string): LeadershipFor {
    return (name) => this.leadership(instance, name);
  }

  /** The instance leading `name`, if any. */
  holder(name: string): string | undefined {
    return this.holders.get(name)?.instance;
  }

  /** Names each instance leads. */
  held(instance: string): string[] {
    return [...this.holders].filter(([, c]) => c.instance === instance).map(([n]) => n).sort();
  }

  /** The holder's lock connection died: it loses `name` and the next waiter leads. */
  drop(name: string): void {
    const c = this.holders.get(name);
    if (!c) throw new Error(`MemoryLocks: nobody leads ${name}`);
    this.holders.delete(name);
    c.onLost();
    this.grant(name);
  }

  private leadership(instance: string, name: string): Leadership {
    let mine: Claim | undefined;
    return {
      acquire: (onLost) =>
        new Promise<void>((resolve, reject) => {
          mine = { instance, onLost, resolve, reject };
          this.waiting.set(name, [...(this.waiting.get(name) ?? []), mine]);
          queueMicrotask(() => this.grant(name));
        }),
      release: async () => {
        const c = mine;
        if (!c) return;
        mine = undefined;
        if (this.holders.get(name) === c) {
          this.holders.delete(name);
          this.grant(name);
          return;
        }
        const queue = this.waiting.get(name) ?? [];
        if (queue.includes(c)) {
          this.waiting.set(name, queue.filter((x) => x !== c));
          c.reject(new Error('released before leading'));
        }
      },
    };
  }

  private grant(name: string): void {
    if (this.holders.has(name)) return;
    const [next, ...rest] = this.waiting.get(name) ?? [];
    if (!next) return;
    this.waiting.set(name, rest);
    this.holders.set(name, next);
    next.resolve();
  }
}
