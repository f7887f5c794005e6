/**
 * Several full benchmark runs as one result: every number is the median of that number across the runs
 * (arrays of one length element by element, objects key by key), anything else is the first run's, and
 * the issues of all runs are kept once each. The report then shows medians without knowing about runs.
 */
import type { BenchResults, SectionIssue } from './report';
import { median } from './harness/stats';

function merge(values: unknown[]): unknown {
  const first = values[0];
  if (values.every((v) => typeof v === 'number')) {
    const finite = (values as number[]).filter((v) => Number.isFinite(v));
    return finite.length > 0 ? median(finite) : first;
  }
  if (values.every((v) => Array.isArray(v))) {
    const arrays = values as unknown[][];
    if (arrays.some((a) => a.length !== arrays[0].length)) return first;
    return arrays[0].map((_, i) => merge(arrays.map((a) => a[i])));
  }
  if (values.every((v) => v !== null && typeof v === 'object' && !Array.isArray(v))) {
    const objects = values as Record<string, unknown>[];
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(objects[0])) {
      const present = objects.filter((o) => key in o);
      out[key] = present.length === objects.length ? merge(present.map((o) => o[key])) : objects[0][key];
    }
    return out;
  }
  return first;
}

export function medianOfRuns(runs: BenchResults[]): BenchResults {
  if (runs.length === 1) return runs[0];
  const merged = merge(runs) as BenchResults;
  const issues = new Map<string, SectionIssue>();
  for (const r of runs) for (const i of r.issues) issues.set(`${i.section}\u0000${i.kind}\u0000${i.message}`, i);
  return { ...merged, runs: runs.length, seconds: runs.reduce((n, r) => n + r.seconds, 0), issues: [...issues.values()] };
}
