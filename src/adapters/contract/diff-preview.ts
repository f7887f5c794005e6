/**
 * Line-based unified diff for approval previews (edit_file old→new, write_file new content). Small inputs
 * get an exact LCS diff with 2 lines of context; inputs too large for a quadratic table degrade to
 * "all removed, then all added", which is still a correct (if verbose) diff. Output is meant to be cut to fit.
 */

const MAX_CELLS = 400_000;
const CONTEXT = 2;

type Op = { kind: ' ' | '-' | '+'; line: string; a: number; b: number };

function splitLines(s: string): string[] {
  if (s === '') return [];
  const lines = s.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function lcsOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if ((n + 1) * (m + 1) > MAX_CELLS) {
    return [...a.map((line, i) => ({ kind: '-' as const, line, a: i, b: 0 })), ...b.map((line, j) => ({ kind: '+' as const, line, a: n, b: j }))];
  }
  // suffix LCS lengths, walked forward to emit ops in order
  const w = m + 1;
  const t = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) t[i * w + j] = a[i] === b[j] ? t[(i + 1) * w + j + 1] + 1 : Math.max(t[(i + 1) * w + j], t[i * w + j + 1]);
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push({ kind: ' ', line: a[i], a: i++, b: j++ });
    else if (j < m && (i === n || t[i * w + j + 1] > t[(i + 1) * w + j])) ops.push({ kind: '+', line: b[j], a: i, b: j++ });
    else ops.push({ kind: '-', line: a[i], a: i++, b: j });
  }
  return ops;
}

/** A unified diff body (hunk headers and ±/space lines, no file header) from `before` to `after`. */
export function unifiedDiff(before: string, after: string): string {
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = lcsOps(a, b);
  const changed = ops.map((o) => o.kind !== ' ');
  const keep = ops.map((_, k) => {
    for (let d = -CONTEXT; d <= CONTEXT; d++) if (changed[k + d]) return true;
    return false;
  });
  const out: string[] = [];
  let k = 0;
  while (k < ops.length) {
    if (!keep[k]) { k++; continue; }
    let end = k;
    while (end < ops.length && keep[end]) end++;
    const hunk = ops.slice(k, end);
    const aStart = hunk[0].a;
    const bStart = hunk[0].b;
    const aLen = hunk.filter((o) => o.kind !== '+').length;
    const bLen = hunk.filter((o) => o.kind !== '-').length;
    out.push(`@@ -${aLen ? aStart + 1 : aStart},${aLen} +${bLen ? bStart + 1 : bStart},${bLen} @@`);
    for (const o of hunk) out.push(`${o.kind}${o.line}`);
    k = end;
  }
  return out.join('\n');
}
