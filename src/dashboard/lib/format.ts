/**
 * Display helpers shared by the pages: times (absolute, in a given time zone, and "n s ago"), token counts
 * and USD costs.
 */
export function when(ms: number | null | undefined): string {
  if (!ms) return '—';
  const d = new Date(ms);
  return `${d.toLocaleDateString(undefined, { year: 'numeric', month: '2-digit', day: '2-digit' })} ${d.toLocaleTimeString(undefined, { hour12: false })}`;
}

export function ago(ms: number | null | undefined, now = Date.now()): string {
  if (!ms) return 'never';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

export function tokens(n: number): string {
  return n.toLocaleString('en-US');
}

export function usd(cost: number | null): string {
  return cost === null ? '—' : `$${cost.toFixed(cost < 1 ? 4 : 2)}`;
}

/** An instant as the wall clock of an IANA time zone shows it, the zone named: `Thu, 01/01/2099, 09:00 (Asia/Tokyo)`. */
export function whenIn(ms: number, timeZone: string): string {
  const f = new Intl.DateTimeFormat(undefined, { timeZone, weekday: 'short', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  return `${f.format(ms)} (${timeZone})`;
}
