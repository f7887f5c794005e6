/**
 * A binary min-heap ordered by a caller's `before(a, b)`. Shared by the rate governor (live waiters by
 * due time) and the test fake clock (timers by fire time), where O(log n) push/pop keeps thousands of
 * concurrent chats cheap. No library: the dozen lines are smaller than any dependency that offers them.
 */
export class MinHeap<T> {
  private readonly h: T[] = [];

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.h.length;
  }

  peek(): T | undefined {
    return this.h[0];
  }

  push(x: T): void {
    const h = this.h;
    h.push(x);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }

  pop(): T | undefined {
    const h = this.h;
    const top = h[0];
    const last = h.pop();
    if (h.length && last !== undefined) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.before(h[l], h[m])) m = l;
        if (r < h.length && this.before(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m], h[i]];
        i = m;
      }
    }
    return top;
  }
}
