/**
 * Sessions: the list filtered by platform, route, status, date range and text (title, session id or
 * conversation key, which names the chat and user), newest activity first, 50 a page, each with the gateway
 * instance that owns its conversation (— when none); a row opens its transcript (#/sessions/<id>).
 */
import { useState } from 'preact/hooks';
import { api, qs } from '../lib/api';
import { ago, tokens } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { route } from '../lib/nav';
import { Badge, ErrorLine, Pager } from '../lib/ui';
import type { SessionRow } from '../lib/types';
import type { PageProps } from '../app/router';
import { TranscriptPage } from './transcript';

const LIMIT = 50;
const PLATFORMS = ['', 'web', 'telegram', 'slack', 'discord'];

interface Filters { platform: string; route: string; status: string; q: string; since: string; until: string }
const EMPTY: Filters = { platform: '', route: '', status: '', q: '', since: '', until: '' };

export function SessionsPage({ args }: PageProps) {
  if (args[0]) return <TranscriptPage sessionId={args[0]} />;
  return <SessionList />;
}

function SessionList() {
  const [f, setF] = useState<Filters>(EMPTY);
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => api<{ sessions: SessionRow[] }>(`/api/sessions${qs({
    platform: f.platform, route: f.route, status: f.status, q: f.q, limit: LIMIT, offset,
    since: f.since, until: f.until ? String(Date.parse(f.until) + 86_400_000) : undefined,
  })}`), [f, offset]);
  const set = (k: keyof Filters) => (e: Event) => {
    setOffset(0);
    setF({ ...f, [k]: (e.target as HTMLInputElement).value });
  };
  return (
    <div>
      <h1>Sessions</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>Platform<select name="platform" value={f.platform} onChange={set('platform')}>{PLATFORMS.map((p) => <option key={p} value={p}>{p || 'any'}</option>)}</select></label>
        <label>Route<input name="route" value={f.route} onChange={set('route')} placeholder="any" /></label>
        <label>Status<select name="status" value={f.status} onChange={set('status')}>{['', 'idle', 'running', 'compacting'].map((s) => <option key={s} value={s}>{s || 'any'}</option>)}</select></label>
        <label>User, chat or text<input name="q" value={f.q} onChange={set('q')} placeholder="title, id, chat or user id" /></label>
        <label>From<input name="since" type="date" value={f.since} onChange={set('since')} /></label>
        <label>To<input name="until" type="date" value={f.until} onChange={set('until')} /></label>
      </form>
      <ErrorLine error={list.error} />
      <table class="rows">
        <thead><tr><th>Title</th><th>Platform</th><th>Route</th><th>Status</th><th>Tokens</th><th>Last active</th><th>Instance</th></tr></thead>
        <tbody>
          {(list.data?.sessions ?? []).map((s) => (
            <tr key={s.session_id} class="link" onClick={() => route(`sessions/${encodeURIComponent(s.session_id)}`)}>
              <td><a href={`#/sessions/${encodeURIComponent(s.session_id)}`}>{s.title ?? s.session_id}</a>{s.platform_problem ? <span class="error"> ⚠ {s.platform_problem}</span> : null}</td>
              <td>{s.platform ?? '—'}</td><td>{s.route ?? '—'}</td><td><Badge state={s.status} /></td><td>{tokens(s.total)}</td><td>{ago(s.last_active_at)}</td>
              <td data-col="instance">{s.owner_instance ? <code>{s.owner_instance}</code> : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data && list.data.sessions.length === 0 ? <p class="muted">No session matches.</p> : null}
      <Pager offset={offset} limit={LIMIT} count={list.data?.sessions.length ?? 0} onPage={setOffset} />
    </div>
  );
}
