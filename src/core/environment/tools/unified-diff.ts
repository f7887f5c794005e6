/**
 * Line-based unified diff (3 lines of context) for the file tools' reports. Myers' O(ND) algorithm on
 * the part between the common prefix and suffix; past a bounded edit distance the middle is reported as
 * replaced wholesale, which keeps the diff valid while bounding time and memory on unrelated rewrites.
 */

type Op = { t: ' ' | '-' | '+'; line: string };

const MAX_EDIT_DISTANCE = 4000;

export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function myers(a: string[], b: string[]): Op[] | null {
  const n = a.length;
  const m = b.length;
  const limit = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = limit + 1;
  const v = new Int32Array(2 * limit + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= limit; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, trace, d);
    }
  }
  return null;
}

function backtrack(a: string[], b: string[], trace: Int32Array[], dEnd: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = dEnd; d >= 0; d--) {
    const snap = trace[d];
    const at = (k: number) => snap[k + d + 1];
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ t: ' ', line: a[x - 1] });
      x--;
      y--;
    }
    if (d === 0) break;
    if (x === prevX) ops.push({ t: '+', line: b[prevY] });
    else ops.push({ t: '-', line: a[prevX] });
    x = prevX;
    y = prevY;
  }
  return ops.reverse();
}

export function diffLines(a: string[], b: string[]): Op[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const midA = a.slice(pre, a.length - suf);
  const midB = b.slice(pre, b.length - suf);
  const middle =
    midA.length === 0 || midB.length === 0
      ? [...midA.map((line): Op => ({ t: '-', line })), ...midB.map((line): Op => ({ t: '+', line }))]
      : (myers(midA, midB) ?? [...midA.map((line): Op => ({ t: '-', line })), ...midB.map((line): Op => ({ t: '+', line }))]);
  return [
    ...a.slice(0, pre).map((line): Op => ({ t: ' ', line })),
    ...middle,
    ...a.slice(a.length - suf).map((line): Op => ({ t: ' ', line })),
  ];
}

/** Unified diff text ('' when the texts have the same lines). */
export function unifiedDiff(oldText: string, newText: string, oldLabel: string, newLabel: string, context = 3): string {
  const ops = diffLines(splitLines(oldText), splitLines(newText));
  const changed = ops.map((o, i) => (o.t === ' ' ? -1 : i)).filter((i) => i >= 0);
  if (changed.length === 0) return '';
  // Group changes whose unchanged gap is small enough to share context.
  const groups: [number, number][] = [];
  for (const i of changed) {
    const last = groups[groups.length - 1];
    if (last && i - last[1] <= 2 * context + 1) last[1] = i;
    else groups.push([i, i]);
  }
  // Line numbers before each op.
  const oldNo: number[] = [];
  const newNo: number[] = [];
  let on = 1;
  let nn = 1;
  for (const o of ops) {
    oldNo.push(on);
    newNo.push(nn);
    if (o.t !== '+') on++;
    if (o.t !== '-') nn++;
  }
  const out = [`--- ${oldLabel}`, `+++ ${newLabel}`];
  for (const [first, last] of groups) {
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length - 1, last + context);
    const slice = ops.slice(from, to + 1);
    const oldLen = slice.filter((o) => o.t !== '+').length;
    const newLen = slice.filter((o) => o.t !== '-').length;
    const oldStart = oldLen === 0 ? oldNo[from] - 1 : oldNo[from];
    const newStart = newLen === 0 ? newNo[from] - 1 : newNo[from];
    out.push(`@@ -${oldStart},${oldLen} +${newStart},${newLen} @@`);
    for (const o of slice) out.push(o.t + o.line);
  }
  return out.join('\n');
}
