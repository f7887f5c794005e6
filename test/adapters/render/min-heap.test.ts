import { MinHeap } from '../../../src/adapters/render/min-heap';

interface Item {
  due: number;
  seq: number;
}
const earlier = (a: Item, b: Item) => a.due < b.due || (a.due === b.due && a.seq < b.seq);
const order = (a: Item, b: Item) => a.due - b.due || a.seq - b.seq;

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('MinHeap', () => {
  it('pops what it holds, earliest first, ties in the order the comparator gives', () => {
    const heap = new MinHeap<Item>(earlier);
    const items = [5, 1, 3, 1, 5, 0, 3, 3].map((due, seq) => ({ due, seq }));
    for (const it of items) heap.push(it);
    expect(heap.size).toBe(items.length);
    const out: Item[] = [];
    for (let x = heap.pop(); x; x = heap.pop()) out.push(x);
    expect(out).toEqual([...items].sort(order));
    expect(heap.size).toBe(0);
    expect(heap.pop()).toBeUndefined();
    expect(heap.peek()).toBeUndefined();
  });

  it('agrees with a sorted list through thousands of interleaved pushes and pops', () => {
    for (const seed of [1, 2, 3]) {
      const rnd = random(seed);
      const heap = new MinHeap<Item>(earlier);
      const reference: Item[] = [];
      let seq = 0;
      for (let step = 0; step < 5_000; step++) {
        if (reference.length === 0 || rnd() < 0.55) {
          // few distinct due times: most comparisons are ties broken by seq, as in the governor
          const it = { due: Math.floor(rnd() * 20), seq: seq++ };
          heap.push(it);
          reference.push(it);
          reference.sort(order);
        } else {
          expect(heap.peek()).toBe(reference[0]);
          expect(heap.pop()).toBe(reference.shift());
        }
        expect(heap.size).toBe(reference.length);
      }
      while (reference.length) expect(heap.pop()).toBe(reference.shift());
    }
  });
});
