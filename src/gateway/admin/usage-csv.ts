/**
 * The usage report as CSV (`GET /api/usage?format=csv`): one row per group and a final `total` row with the
 * same numbers as the JSON answer, cost in USD with 6 decimals (empty when unpriced). Fields are quoted
 * when they need it, and a field starting with = + - @ is prefixed with ' so a spreadsheet never runs it.
 */
import type { CostedUsage } from '../store';

const COLUMNS = ['key', 'requests', 'failures', 'cache_read', 'cache_write', 'output', 'total', 'cost_usd'] as const;

export function csvField(v: string | number | null): string {
  if (v === null) return '';
  let s = String(v);
  if (/^[=+\-@\t\r]/.test(s) && typeof v === 'string') s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function row(g: CostedUsage, key: string): string {
  return [key, g.requests, g.failures, g.cache_read, g.cache_write, g.output, g.total, g.cost === null ? null : g.cost.toFixed(6)].map(csvField).join(',');
}

export function usageCsv(group: string, report: { groups: CostedUsage[]; total: CostedUsage }): string {
  const header = [group, ...COLUMNS.slice(1)].join(',');
  return [header, ...report.groups.map((g) => row(g, g.key)), row(report.total, 'total')].join('\r\n') + '\r\n';
}
