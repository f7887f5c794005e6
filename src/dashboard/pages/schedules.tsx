/**
 * Schedules, against the scheduler's admin contract: `GET /api/schedules` ({schedules: [...]} or a bare
 * list), `POST /api/schedules/:id/enable|disable|run`, `GET /api/schedules/:id/runs` ({runs: [...]}).
 * A gateway without the scheduler answers 404 `not_found` there: the page then says the scheduler is not
 * available instead of failing; an empty list says "No schedules".
 */
import { useState } from 'preact/hooks';
import { api, ApiError } from '../lib/api';
import { when } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { Action, Badge, ErrorLine, Section } from '../lib/ui';

interface Schedule {
  id: string;
  name?: string;
  project_id?: string;
  agent_id?: string;
  enabled?: boolean;
  cron?: string;
  period?: string;
  timezone?: string;
  next_run_at?: number | null;
  deliver_to?: string | null;
}
interface Run { id: number; slot: number; status: string; session_id: string | null; started_at: number | null; duration_ms: number | null; error: string | null }

type Loaded = { available: false } | { available: true; schedules: Schedule[] };

async function loadSchedules(): Promise<Loaded> {
  try {
    const body = await api<{ schedules: Schedule[] } | Schedule[]>('/api/schedules');
    return { available: true, schedules: Array.isArray(body) ? body : body.schedules };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && err.code === 'not_found') return { available: false };
    throw err;
  }
}

export function SchedulesPage() {
  const list = useLoad(loadSchedules, []);
  const [open, setOpen] = useState<string>();
  const d = list.data;
  const post = (s: Schedule, verb: 'enable' | 'disable' | 'run') => async () => {
    await api(`/api/schedules/${encodeURIComponent(s.id)}/${verb}`, { method: 'POST' });
    await list.reload();
  };
  return (
    <div>
      <h1>Schedules</h1>
      <ErrorLine error={list.error} />
      {!d ? (list.error ? null : <p>Loading…</p>) : !d.available ? (
        <p class="banner info" data-testid="scheduler-unavailable">The scheduler is not available in this gateway: it has no schedules API yet.</p>
      ) : d.schedules.length === 0 ? (
        <p class="muted" data-testid="no-schedules">No schedules.</p>
      ) : (
        <table>
          <thead><tr><th>Schedule</th><th>Agent</th><th>When</th><th>Next run</th><th>State</th><th /></tr></thead>
          <tbody>
            {d.schedules.map((s) => [
              <tr key={s.id} data-schedule={s.id}>
                <td><button class="linkish" onClick={() => setOpen(open === s.id ? undefined : s.id)}>{s.name ?? s.id}</button></td>
                <td>{s.project_id && s.agent_id ? `${s.project_id}/${s.agent_id}` : '—'}</td>
                <td><code>{s.cron ?? s.period ?? '—'}</code>{s.timezone ? ` ${s.timezone}` : ''}</td>
                <td>{when(s.next_run_at)}</td>
                <td><Badge state={s.enabled === false ? 'disabled' : 'enabled'} /></td>
                <td class="buttons">
                  {s.enabled === false ? <Action label="Enable" run={post(s, 'enable')} /> : <Action label="Disable" run={post(s, 'disable')} />}
                  <Action label="Run now" kind="primary" run={post(s, 'run')} />
                </td>
              </tr>,
              open === s.id ? <tr key={`${s.id}-runs`}><td colSpan={6}><Runs id={s.id} /></td></tr> : null,
            ])}
          </tbody>
        </table>
      )}
    </div>
  );
}

function Runs({ id }: { id: string }) {
  const runs = useLoad(async () => {
    const body = await api<{ runs: Run[] } | Run[]>(`/api/schedules/${encodeURIComponent(id)}/runs`);
    return Array.isArray(body) ? body : body.runs;
  }, [id]);
  return (
    <Section title="Run history">
      <ErrorLine error={runs.error} />
      {runs.data?.length === 0 ? <p class="muted">Not run yet.</p> : null}
      <table>
        <thead><tr><th>Slot</th><th>Status</th><th>Started</th><th>Duration</th><th>Session</th><th>Error</th></tr></thead>
        <tbody>
          {(runs.data ?? []).map((r) => (
            <tr key={r.id}>
              <td>{when(r.slot)}</td><td><Badge state={r.status} /></td><td>{when(r.started_at)}</td>
              <td>{r.duration_ms === null ? '—' : `${(r.duration_ms / 1000).toFixed(1)} s`}</td>
              <td>{r.session_id ? <a href={`#/sessions/${encodeURIComponent(r.session_id)}`}>{r.session_id}</a> : '—'}</td>
              <td>{r.error ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}
