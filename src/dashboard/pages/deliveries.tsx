/**
 * Deliveries, from the delivery ledger: dead letters (messages a platform refused for good) with Resend,
 * the recent outbound messages 50 a page, and the timeline of one reply (#/deliveries/<task id>, from GET
 * /api/tasks/:id/timeline): the inbound message, the Task's start, then every post, edit, draft, retry, 429
 * and failure in order, with each message of the reply (state, attempts, last error) below.
 */
import { useState } from 'preact/hooks';
import { api, qs } from '../lib/api';
import { when } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { route } from '../lib/nav';
import { Action, Badge, ErrorLine, Pager, Section } from '../lib/ui';
import type { Delivery, DeliveryEvent, TaskTimeline } from '../lib/types';
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

const STEP: Record<string, string> = {
  inbound: 'message received', task_started: 'Task started', post: 'posted', edit: 'edited', draft: 'draft shown', delete: 'deleted',
  stream_start: 'stream started', stream_append: 'streamed', stream_stop: 'stream ended', retry: 'retry', rate_limited: '429 rate limited',
  degraded: 'degraded', failed: 'failed',
};

function Timeline({ taskId }: { taskId: string }) {
  const t = useLoad(() => api<TaskTimeline>(`/api/tasks/${encodeURIComponent(taskId)}/timeline`), [taskId], 3000);
  const events = t.data?.events ?? [];
  const count = (kind: string) => events.filter((e) => e.kind === kind).length;
  return (
    <div>
      <p><a href="#/deliveries">← Deliveries</a></p>
      <h1>Reply timeline · task {taskId}</h1>
      {t.data?.session_id ? <p>Session <a href={`#/sessions/${encodeURIComponent(t.data.session_id)}`}>{t.data.session_id}</a></p> : null}
      <ErrorLine error={t.error} />
      {t.data ? (
        <p class="muted" data-testid="timeline-summary">
          {count('post')} post{count('post') === 1 ? '' : 's'} · {count('edit')} edit{count('edit') === 1 ? '' : 's'} · {count('retry')} retr{count('retry') === 1 ? 'y' : 'ies'} · {count('rate_limited')} × 429 · {count('failed')} failed
        </p>
      ) : null}
      <ol class="timeline steps">
        {events.map((e) => <Step key={e.id} e={e} start={events[0].at} />)}
      </ol>
      {t.data && events.length === 0 ? <p class="muted">No steps recorded for this Task (older than the retention, or before this version).</p> : null}
      <Section title="Messages of this reply">
        <ol class="timeline">
          {(t.data?.deliveries ?? []).map((d) => (
            <li key={d.id}>
              <time>{when(d.created_at)}</time> <strong>{d.purpose}</strong> message {d.platform_message_id ?? '(not posted)'} in {d.platform} {d.chat} · <Badge state={d.state} /> · {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
              {d.last_error ? <div class="error">last error: {d.last_error}</div> : null}
              <div class="muted small">last change {when(d.updated_at)}</div>
            </li>
          ))}
        </ol>
      </Section>
    </div>
  );
}

function Step({ e, start }: { e: DeliveryEvent; start: number }) {
  const bad = e.kind === 'failed' || e.kind === 'rate_limited' || e.kind === 'retry';
  return (
    <li data-kind={e.kind} class={bad ? 'bad' : undefined}>
      <time title={when(e.at)}>+{((e.at - start) / 1000).toFixed(2)} s</time> <strong>{STEP[e.kind] ?? e.kind}</strong>
      {e.part !== null ? <span class="muted"> · part {e.part + 1}</span> : null}
      {e.detail ? <span class={bad ? 'error' : 'muted'}> · {e.detail}</span> : null}
    </li>
  );
}
