/**
 * Schedules: every schedule file of the routed agents as GET /api/schedules shows it (every 3 s) — when it fires
 * (the next fire in its own time zone), where it delivers, its approval and last run — with Enable / Disable /
 * Run now, an operator's grant of an approval mode to this exact definition (Enable or Grant with a mode
 * chosen), and, when opened, its run history (GET …/runs). Invalid files are listed with their errors and no
 * buttons. A gateway whose scheduler is not running answers 503 `scheduler_unavailable`: the page says so.
 */
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { api, ApiError } from '../lib/api';
import { when, whenIn } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { Action, Badge, ErrorLine, Section } from '../lib/ui';
import type { ApprovalMode, Schedule, ScheduleRun } from '../lib/types';

type Loaded = { available: false } | { available: true; schedules: Schedule[] };

async function loadSchedules(): Promise<Loaded> {
  try {
    return { available: true, schedules: (await api<{ schedules: Schedule[] }>('/api/schedules')).schedules };
  } catch (err) {
    if (err instanceof ApiError && err.code === 'scheduler_unavailable') return { available: false };
    throw err;
  }
}

const CEILING_FROM: Record<NonNullable<Schedule['approval']>['ceiling_from'], string> = {
  operator_grant: 'the operator\'s grant',
  route_schedule_approval_mode: 'the route\'s schedule_approval_mode',
  bound_session: 'the bound session\'s mode',
  route_approval_mode: 'the route\'s approval_mode',
};

/** A refused action in the page's words, followed by the API's own message. */
const REFUSED: Record<string, string> = {
  already_queued: 'Already queued',
  schedule_invalid: 'The file is invalid',
  schedule_not_found: 'No such schedule (was its file removed?)',
  schedule_write_failed: 'The file could not be written',
  scheduler_unavailable: 'The scheduler is not running',
};

const COLUMNS = 9;
const ms = (iso: string | null) => (iso === null ? null : Date.parse(iso));

export function SchedulesPage() {
  const list = useLoad(loadSchedules, [], 3000);
  const [open, setOpen] = useState<string>();
  const d = list.data;
  const act = (s: Schedule, verb: 'enable' | 'disable' | 'run', grant?: ApprovalMode) => async () => {
    try {
      await api(`/api/schedules/${encodeURIComponent(s.id)}/${verb}`, grant ? { method: 'POST', body: { approval_mode: grant } } : { method: 'POST' });
    } catch (err) {
      if (err instanceof ApiError && REFUSED[err.code]) throw new Error(`${REFUSED[err.code]}: ${err.message}`);
      throw err;
    } finally {
      await list.reload();
    }
  };
  return (
    <div>
      <h1>Schedules</h1>
      <ErrorLine error={list.error} />
      {!d ? (list.error ? null : <p>Loading…</p>) : !d.available ? (
        <p class="banner warn" data-testid="scheduler-unavailable">The scheduler is not running (see the gateway log).</p>
      ) : d.schedules.length === 0 ? (
        <div data-testid="no-schedules">
          <p>No schedules.</p>
          <p class="muted small">A schedule is a file <code>&lt;PENGUIN_HOME&gt;/&lt;project&gt;/agents/&lt;agent&gt;/agent_state/schedule/&lt;name&gt;.toml</code> of a routed agent; the gateway reads new and changed files without a restart.</p>
        </div>
      ) : (
        <table class="schedules">
          <thead><tr><th>Schedule</th><th>Agent</th><th>When</th><th>Next fire</th><th>Delivers to</th><th>Approval</th><th>State</th><th>Last run</th><th /></tr></thead>
          <tbody>
            {d.schedules.map((s) => (
              <Fragment key={s.id}>
                {s.valid ? <ScheduleRow s={s} open={open === s.id} toggle={() => setOpen(open === s.id ? undefined : s.id)} act={act} /> : <InvalidRow s={s} />}
                {s.valid && open === s.id ? <tr class="runs"><td colSpan={COLUMNS}><Runs s={s} /></td></tr> : null}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

const MODES: ApprovalMode[] = ['allow-all', 'always-ask', 'read-only', 'deny-all'];
type Act = (s: Schedule, verb: 'enable' | 'disable' | 'run', grant?: ApprovalMode) => () => Promise<void>;

function ScheduleRow({ s, open, toggle, act }: { s: Schedule; open: boolean; toggle: () => void; act: Act }) {
  const [grant, setGrant] = useState<ApprovalMode | ''>('');
  const a = s.approval;
  const next = ms(s.next_fire_at);
  const last = s.last_run;
  return (
    <tr data-schedule={s.id}>
      <td>
        <button class="linkish" aria-expanded={open} title="Run history" onClick={toggle}>{s.name}</button>
        {s.prompt ? <div class="muted small prompt" title={s.prompt}>{s.prompt.length > 80 ? `${s.prompt.slice(0, 79)}…` : s.prompt}</div> : null}
      </td>
      <td>{s.project}/{s.agent}</td>
      <td data-col="when">
        {s.schedule?.kind === 'cron' ? <><code>{s.schedule.cron}</code> <span class="muted">{s.schedule.timezone}</span></>
          : s.schedule?.kind === 'period' ? <>every <code>{s.schedule.period}</code></>
          : <>once at {when(ms(s.start_at))}</>}
        {s.end_at ? <div class="muted small">until {when(ms(s.end_at))}</div> : null}
      </td>
      <td data-col="next" title={s.next_fire_at ?? undefined}>
        {next !== null ? (s.schedule?.kind === 'cron' ? whenIn(next, s.schedule.timezone) : when(next)) : <span class="muted">{s.enabled ? 'no more runs' : '— (disabled)'}</span>}
      </td>
      <td data-col="delivers">
        <code>{s.delivers_to ?? '—'}</code>
        {s.deliver_to === null && s.session_id === null ? <div class="muted small">no deliver_to: its own playground conversation</div> : null}
        {s.session_id !== null ? <div class="small"><a href={`#/sessions/${encodeURIComponent(s.session_id)}`}>the bound session</a></div> : null}
        {s.delivery_problem ? <div class="error small" data-testid="delivery-problem">{s.delivery_problem}</div> : null}
      </td>
      <td data-col="approval">
        {a ? (
          <>
            <Badge state={a.effective} />
            <div class="muted small">file asks {a.requested}; ceiling {a.ceiling} from {CEILING_FROM[a.ceiling_from]}</div>
            {a.grant === 'active' ? <div class="small grant">grant active</div> : null}
            {a.grant === 'stale' ? <div class="small warn grant">grant stale: the file changed since it was granted</div> : null}
          </>
        ) : '—'}
      </td>
      <td data-col="state">
        <Badge state={s.enabled ? 'enabled' : 'disabled'} />
        {s.running ? <> <Badge state="running" /></> : null}
        {s.queued ? <> <Badge state="queued" /></> : null}
      </td>
      <td data-col="last">
        {last ? (
          <>
            <Badge state={last.status} /> <span class="small">{when(last.ended_at ?? last.started_at ?? last.created_at)}</span>
            {last.error ? <div class="error small">{last.error}</div> : null}
          </>
        ) : <span class="muted">never</span>}
      </td>
      <td class="actions">
        <div class="buttons">
          {s.enabled ? <Action label="Disable" run={act(s, 'disable')} /> : <Action label="Enable" run={act(s, 'enable', grant || undefined)} />}
          <Action label="Run now" kind="primary" run={act(s, 'run')} />
          <label class="small grant-mode" title="Writes approval_mode into the file and grants it to this exact definition; any edit of the file voids the grant">
            grant
            <select aria-label="Approval mode to grant" value={grant} onChange={(e) => setGrant((e.currentTarget as HTMLSelectElement).value as ApprovalMode | '')}>
              <option value="">— (none)</option>
              {MODES.map((m) => <option key={m} value={m}>{m}</option>)}
            </select>
          </label>
          {s.enabled && grant ? <Action label="Grant" run={async () => { await act(s, 'enable', grant)(); setGrant(''); }} /> : null}
        </div>
      </td>
    </tr>
  );
}

function InvalidRow({ s }: { s: Schedule }) {
  return (
    <tr data-schedule={s.id} class="invalid">
      <td>{s.name} <Badge state="invalid" /></td>
      <td>{s.project}/{s.agent}</td>
      <td colSpan={COLUMNS - 2}>
        <div>Invalid file, skipped: <code>{s.file}</code></div>
        <ul class="issues">
          {s.errors.map((e, i) => (
            <li key={i} data-path={e.path}><code>{e.path || '(the file)'}</code>: expected {e.expected}, found {e.found}</li>
          ))}
        </ul>
      </td>
    </tr>
  );
}

function Runs({ s }: { s: Schedule }) {
  // A change of the schedule's last run or lane reloads at once; the poll catches the rest.
  const stamp = `${s.last_run?.id}:${s.last_run?.status}:${s.running}:${s.queued}`;
  const runs = useLoad(async () => (await api<{ runs: ScheduleRun[] }>(`/api/schedules/${encodeURIComponent(s.id)}/runs?limit=20`)).runs, [s.id, stamp], 3000);
  return (
    <Section title={`Run history of ${s.name}`}>
      <ErrorLine error={runs.error} />
      {runs.data?.length === 0 ? <p class="muted">Not run yet.</p> : null}
      {runs.data?.length ? (
        <table class="run-history">
          <thead><tr><th>Run</th><th>Kind</th><th>Slot</th><th>Status</th><th>Started</th><th>Duration</th><th>Session</th><th>Error</th></tr></thead>
          <tbody>
            {runs.data.map((r) => (
              <tr key={r.id} data-run={r.id}>
                <td>#{r.id}</td><td>{r.kind}</td><td>{when(r.slot)}</td><td><Badge state={r.status} /></td><td>{when(r.started_at)}</td>
                <td>{r.duration_ms === null ? '—' : `${(r.duration_ms / 1000).toFixed(1)} s`}</td>
                <td>{r.session_id ? <a href={`#/sessions/${encodeURIComponent(r.session_id)}`}>{r.session_id}</a> : '—'}</td>
                <td>{r.error ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Section>
  );
}
