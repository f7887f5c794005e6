import fc from 'fast-check';
import { MinHeap } from '../../../src/adapters/render/min-heap';

interface Item {
  due: number;
  seq: number;
}
const earlier = (a: Item, b: Item) => a.due < b.due || (a.due === b.due && a.seq < b.seq);
const order = (a: Item, b: Item) => a.due - b.due || a.seq - b.seq;

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

  it('agrees with a sorted list through any interleaving of pushes and pops', () => {
    // few distinct due times (null: a pop), so most comparisons are ties broken by seq, as in the governor
    const op = fc.option(fc.integer({ min: 0, max: 19 }), { freq: 3 });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const heap = new MinHeap<Item>(earlier);
        const reference: Item[] = [];
        ops.forEach((due, seq) => {
          if (due === null) {
            expect(heap.peek()).toBe(reference[0]);
            expect(heap.pop()).toBe(reference.shift());
          } else {
            const it = { due, seq };
            heap.push(it);
            reference.push(it);
            reference.sort(order);
          }
          expect(heap.size).toBe(reference.length);
        });
        while (reference.length) expect(heap.pop()).toBe(reference.shift());
      }),
    );
  });
});
