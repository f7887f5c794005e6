/**
 * Memory pressure on the sessions held in memory: which idle ones leave first (least recently active) when
 * more than `max_in_memory` are held, or a share of them when the heap in use is past its budget (the heap
 * shrinks only after a GC, so a share per check rather than all). The V8 reading is the default probe.
 */
import { getHeapStatistics } from 'node:v8';

export interface MemoryReading {
  heapUsed: number;
  budget: number;
}

/** Under heap pressure, this share of the idle sessions goes at each check. */
export const PRESSURE_SHARE = 0.25;

/** V8's heap in use, bytes. */
export const heapUsed = (): number => getHeapStatistics().used_heap_size;

/** V8's heap in use, against `budgetMb` (default 70 % of V8's heap limit). */
export function v8Memory(budgetMb: number | undefined): () => MemoryReading {
  const limit = getHeapStatistics().heap_size_limit;
  const budget = budgetMb !== undefined ? budgetMb * 1024 * 1024 : 0.7 * limit;
  return () => ({ heapUsed: heapUsed(), budget });
}

/** The entries to evict now, least recently active first; none when there is no pressure. */
export function pressureVictims<E extends { lastActive: number }>(all: E[], isIdle: (e: E) => boolean, maxInMemory: number, m: MemoryReading): E[] {
  const over = all.length - maxInMemory;
  if (over <= 0 && m.heapUsed <= m.budget) return [];
  const idle = all.filter(isIdle).sort((a, b) => a.lastActive - b.lastActive);
  const count = Math.max(over, m.heapUsed > m.budget ? Math.ceil(idle.length * PRESSURE_SHARE) : 0);
  return idle.slice(0, count);
}
