/**
 * Overview: each adapter's state (connected, not configured and why, failing) with its last inbound
 * event, this gateway instance (its id, the conversations it owns, its live peers with when each was last
 * seen, or that it runs alone), the running Tasks (with Abort), the rate budgets in use or paused, and
 * recent problems (platform refusals, dead letters). Refreshes every 3 s while open.
 */
import { api } from '../lib/api';
import { ago, when } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { Action, Badge, ErrorLine, Section } from '../lib/ui';
import type { InstanceInfo, Overview } from '../lib/types';

function InstanceSection({ i }: { i: InstanceInfo }) {
  return (
    <Section title="This instance">
      <p>
        <code data-testid="instance-id">{i.id}</code> owns <span data-testid="instance-owns">{i.owns}</span> conversation{i.owns === 1 ? '' : 's'}.
      </p>
      {i.peers.length === 0 ? <p class="muted" data-testid="instance-alone">Runs alone: no other gateway instance is live on its database.</p> : (
        <table data-testid="instance-peers">
          <thead><tr><th>Peer instance</th><th>Last seen</th></tr></thead>
          <tbody>
            {i.peers.map((p) => <tr key={p.id}><td><code>{p.id}</code></td><td>{ago(p.last_seen)}</td></tr>)}
          </tbody>
        </table>
      )}
    </Section>
  );
}

export function OverviewPage() {
  const o = useLoad(() => api<Overview>('/api/overview'), [], 3000);
  const d = o.data;
  return (
    <div>
      <h1>Overview</h1>
      <ErrorLine error={o.error} />
      {!d ? <p>Loading…</p> : (
        <div class="grid">
          <Section title="Adapters">
            <ul class="adapters">
              {d.adapters.map((a) => (
                <li key={a.name} class={`adapter adapter-${a.state}`}>
                  <strong>{a.name}</strong> <Badge state={a.state === 'disabled' ? 'not configured' : a.state} />
                  {a.detail ? <span class="muted"> — {a.detail}</span> : null}
                  <div class="muted small">last inbound event: {ago(a.last_inbound_at)}</div>
                </li>
              ))}
            </ul>
            {!d.accepting ? <p class="error">The gateway is not taking events (starting or shutting down).</p> : null}
          </Section>
          {d.instance ? <InstanceSection i={d.instance} /> : null}
          <Section title={`Running tasks (${d.tasks.length})`}>
            {d.tasks.length === 0 ? <p class="muted">No Task is running.</p> : (
              <table>
                <thead><tr><th>Session</th><th>Platform</th><th>Route</th><th>Started by</th><th>Since</th><th /></tr></thead>
                <tbody>
                  {d.tasks.map((t) => (
                    <tr key={t.task_id}>
                      <td><a href={`#/sessions/${encodeURIComponent(t.session_id)}`}>{t.session_id}</a>{t.queued ? <span class="muted"> +{t.queued} queued</span> : null}</td>
                      <td>{t.platform}</td><td>{t.route}</td><td>{t.requester}</td><td>{ago(t.started_at)}</td>
                      <td><Action label="Abort" kind="danger" run={async () => { await api(`/api/sessions/${encodeURIComponent(t.session_id)}/abort`, { method: 'POST' }); await o.reload(); }} /></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Section>
          <Section title="Rate budgets in use">
            {d.rate_budgets.length === 0 ? <p class="muted">Every budget is full: nothing is being throttled.</p> : (
              <table>
                <thead><tr><th>Bucket</th><th>Tokens left</th><th>Paused until</th></tr></thead>
                <tbody>
                  {d.rate_budgets.map((b) => (
                    <tr key={b.key}>
                      <td><code>{b.key}</code></td>
                      <td><meter min={0} max={b.capacity} value={b.tokens} /> {b.tokens} / {b.capacity}</td>
                      <td>{b.paused_until ? when(b.paused_until) : '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Section>
          <Section title="Recent problems">
            {d.platform_problems.length === 0 && d.dead_letters.length === 0 ? <p class="muted">No platform problems and no dead letters.</p> : null}
            <ul class="problems">
              {d.platform_problems.map((p) => (
                <li key={p.session_id}><Badge state="failed" /> {p.platform}: {p.problem} — <a href={`#/sessions/${encodeURIComponent(p.session_id)}`}>{p.title ?? p.session_id}</a> <span class="muted">{ago(p.at)}</span></li>
              ))}
              {d.dead_letters.map((x) => (
                <li key={`d${x.id}`}><Badge state="failed" /> {x.platform} {x.purpose} message not delivered: {x.last_error ?? 'unknown error'} — <a href="#/deliveries">resend</a> <span class="muted">{ago(x.updated_at)}</span></li>
              ))}
            </ul>
          </Section>
        </div>
      )}
    </div>
  );
}
