/**
 * Usage and cost: GET /api/usage grouped by day, model, route, session, platform or project over a date
 * range, drawn as a stacked bar chart of tokens (cache read, cache write, output) with cost per group, the
 * totals exactly as the API sums them, and a CSV download of the same report. By user is not offered:
 * usage rows do not record who asked (they are rebuilt from traces, which do not say).
 */
import { useState } from 'preact/hooks';
import { api, qs } from '../lib/api';
import { BarChart } from '../lib/chart';
import { tokens, usd } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { ErrorLine, Section } from '../lib/ui';
import type { UsageReport } from '../lib/types';

const GROUPS = ['day', 'model', 'route', 'user', 'session', 'platform', 'project'] as const;

export function UsagePage() {
  const [group, setGroup] = useState<(typeof GROUPS)[number]>('day');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const query = qs({ group, from, to });
  const r = useLoad(() => api<UsageReport>(`/api/usage${query}`), [query]);
  const d = r.data;
  return (
    <div>
      <h1>Usage and cost</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>Group by<select name="group" value={group} onChange={(e) => setGroup((e.target as HTMLSelectElement).value as typeof group)}>{GROUPS.map((g) => <option key={g} value={g}>{g}</option>)}</select></label>
        <label>From<input name="from" type="date" value={from} onChange={(e) => setFrom((e.target as HTMLInputElement).value)} /></label>
        <label>To<input name="to" type="date" value={to} onChange={(e) => setTo((e.target as HTMLInputElement).value)} /></label>
        <a class="button" href={`/api/usage${qs({ group, from, to, format: 'csv' })}`} download={`usage-by-${group}.csv`}>Export CSV</a>
      </form>
      <ErrorLine error={r.error} />
      {d ? (
        <>
          <Section title="Totals">
            <dl class="totals" data-testid="usage-totals">
              <div><dt>Requests</dt><dd data-total="requests">{tokens(d.total.requests)}</dd></div>
              <div><dt>Failed</dt><dd data-total="failures">{tokens(d.total.failures)}</dd></div>
              <div><dt>Tokens</dt><dd data-total="total">{tokens(d.total.total)}</dd></div>
              <div><dt>Output</dt><dd data-total="output">{tokens(d.total.output)}</dd></div>
              <div><dt>Cost</dt><dd data-total="cost">{usd(d.total.cost)}</dd></div>
            </dl>
          </Section>
          <Section title={`Tokens by ${group}`}>
            {d.groups.length === 0 ? <p class="muted">No usage in this range.</p> : (
              <BarChart label={`tokens by ${group}`} stacked labels={d.groups.map((g) => g.key)} series={[
                { label: 'cache read', data: d.groups.map((g) => g.cache_read), color: '#8fb3d9' },
                { label: 'cache write', data: d.groups.map((g) => g.cache_write), color: '#d9b38f' },
                { label: 'output', data: d.groups.map((g) => g.output), color: '#3b6ea5' },
              ]} />
            )}
          </Section>
          <Section title="Groups">
            <table>
              <thead><tr><th>{group}</th><th>Requests</th><th>Tokens</th><th>Output</th><th>Cost</th></tr></thead>
              <tbody>
                {d.groups.map((g) => <tr key={g.key}><td>{g.key}</td><td>{tokens(g.requests)}</td><td>{tokens(g.total)}</td><td>{tokens(g.output)}</td><td>{usd(g.cost)}</td></tr>)}
              </tbody>
            </table>
          </Section>
        </>
      ) : null}
    </div>
  );
}
