/**
 * Deliveries, from the delivery ledger: dead letters (messages a platform refused for good) with Resend,
 * the recent outbound messages 50 a page, and the timeline of one reply (#/deliveries/<task id>): every
 * message of that Task in order — posts of the live reply, cards, finals — with attempts, state and the
 * last error the platform gave (a 429 or a refusal).
 */
import { useState } from 'preact/hooks';
import { api, qs } from '../lib/api';
import { when } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { route } from '../lib/nav';
import { Action, Badge, ErrorLine, Pager, Section } from '../lib/ui';
import type { Delivery } from '../lib/types';
import type { PageProps } from '../app/router';

const LIMIT = 50;

export function DeliveriesPage({ args }: PageProps) {
  return args[0] ? <Timeline taskId={args[0]} /> : <Ledger />;
}

function Ledger() {
  const dead = useLoad(() => api<{ deliveries: Delivery[] }>('/api/deliveries?state=failed&limit=100'), []);
  const [offset, setOffset] = useState(0);
  const recent = useLoad(() => api<{ deliveries: Delivery[] }>(`/api/deliveries${qs({ limit: LIMIT, offset })}`), [offset]);
  return (
    <div>
      <h1>Deliveries</h1>
      <Section title={`Dead letters (${dead.data?.deliveries.length ?? 0})`}>
        <ErrorLine error={dead.error} />
        {dead.data?.deliveries.length === 0 ? <p class="muted">No dead letters: every message was delivered or is on its way.</p> : null}
        <ul class="dead">
          {(dead.data?.deliveries ?? []).map((d) => (
            <li key={d.id}>
              <strong>{d.platform}</strong> {d.purpose} to {d.chat} · {d.attempts} attempts · {d.last_error ?? 'no error recorded'} <span class="muted">{when(d.updated_at)}</span>
              {d.shown ? <pre class="shown">{d.shown}</pre> : null}
              <Action label="Resend" kind="primary" run={async () => { await api(`/api/deliveries/${d.id}/resend`, { method: 'POST' }); await Promise.all([dead.reload(), recent.reload()]); }} />
            </li>
          ))}
        </ul>
      </Section>
      <Section title="Recent messages">
        <ErrorLine error={recent.error} />
        <DeliveryTable rows={recent.data?.deliveries ?? []} />
        <Pager offset={offset} limit={LIMIT} count={recent.data?.deliveries.length ?? 0} onPage={setOffset} />
      </Section>
    </div>
  );
}

function DeliveryTable({ rows }: { rows: Delivery[] }) {
  return (
    <table>
      <thead><tr><th>#</th><th>When</th><th>Platform</th><th>Purpose</th><th>State</th><th>Attempts</th><th>Reply</th><th>Last error</th></tr></thead>
      <tbody>
        {rows.map((d) => (
          <tr key={d.id}>
            <td>{d.id}</td><td>{when(d.created_at)}</td><td>{d.platform} {d.chat}</td><td>{d.purpose}</td><td><Badge state={d.state} /></td><td>{d.attempts}</td>
            <td>{d.task_id ? <button class="linkish" onClick={() => route(`deliveries/${encodeURIComponent(d.task_id!)}`)}>timeline</button> : '—'}</td>
            <td>{d.last_error ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Timeline({ taskId }: { taskId: string }) {
  const rows = useLoad(() => api<{ deliveries: Delivery[] }>(`/api/deliveries${qs({ task_id: taskId, order: 'asc', limit: 500 })}`), [taskId]);
  const list = rows.data?.deliveries ?? [];
  const session = list.find((d) => d.session_id)?.session_id;
  return (
    <div>
      <p><a href="#/deliveries">← Deliveries</a></p>
      <h1>Reply timeline · task {taskId}</h1>
      {session ? <p>Session <a href={`#/sessions/${encodeURIComponent(session)}`}>{session}</a></p> : null}
      <ErrorLine error={rows.error} />
      <ol class="timeline">
        {list.map((d) => (
          <li key={d.id}>
            <time>{when(d.created_at)}</time> <strong>{d.purpose}</strong> message {d.platform_message_id ?? '(not posted)'} in {d.platform} {d.chat} · <Badge state={d.state} /> · {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
            {d.last_error ? <div class="error">last error: {d.last_error}</div> : null}
            <div class="muted small">last change {when(d.updated_at)}</div>
          </li>
        ))}
      </ol>
      {rows.data && list.length === 0 ? <p class="muted">The ledger has no message of this Task.</p> : null}
    </div>
  );
}
