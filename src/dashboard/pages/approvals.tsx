/**
 * Approvals: the pending tool calls (refreshed every 2 s) with Allow / Deny, decided as the operator
 * through POST /api/approvals/:id — the runtime answers the waiting call and edits the chat card — and
 * the history of decided, expired and cancelled approvals with who decided, 50 a page.
 */
import { useState } from 'preact/hooks';
import { api, qs } from '../lib/api';
import { ago, when } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { Action, Badge, ErrorLine, Pager, Section } from '../lib/ui';
import type { Approval } from '../lib/types';

const LIMIT = 50;

export function ApprovalsPage() {
  const pending = useLoad(() => api<{ approvals: Approval[] }>('/api/approvals?state=pending&limit=200'), [], 2000);
  const [offset, setOffset] = useState(0);
  const history = useLoad(() => api<{ approvals: Approval[] }>(`/api/approvals${qs({ limit: LIMIT, offset })}`), [offset], 5000);
  const decide = (a: Approval, decision: 'allow' | 'deny') => async () => {
    await api(`/api/approvals/${a.id}`, { body: { decision } });
    await Promise.all([pending.reload(), history.reload()]);
  };
  const decided = (history.data?.approvals ?? []).filter((a) => a.state !== 'pending');
  return (
    <div>
      <h1>Approvals</h1>
      <Section title={`Pending (${pending.data?.approvals.length ?? 0})`}>
        <ErrorLine error={pending.error} />
        {pending.data?.approvals.length === 0 ? <p class="muted">Nothing is waiting for a decision.</p> : null}
        <ul class="pending">
          {(pending.data?.approvals ?? []).map((a) => (
            <li key={a.id} class="approval" data-approval={a.id}>
              <div><strong>{a.tool_name}</strong> <span class="muted">asked {ago(a.created_at)} by {a.requester ?? 'the agent'} · expires {when(a.expires_at)}</span></div>
              <div class="muted small">session <a href={`#/sessions/${encodeURIComponent(a.session_id)}`}>{a.session_id}</a>{a.origin_session_id ? ` · subagent ${a.origin_session_id}` : ''}</div>
              <div class="buttons">
                <Action label="Allow" kind="primary" run={decide(a, 'allow')} />
                <Action label="Deny" kind="danger" run={decide(a, 'deny')} />
              </div>
            </li>
          ))}
        </ul>
      </Section>
      <Section title="History">
        <ErrorLine error={history.error} />
        <table>
          <thead><tr><th>Tool</th><th>State</th><th>Decided by</th><th>When</th><th>Session</th></tr></thead>
          <tbody>
            {decided.map((a) => (
              <tr key={a.id}>
                <td>{a.tool_name}</td><td><Badge state={a.state} /></td><td>{a.decided_by ?? '—'}</td><td>{when(a.decided_at)}</td>
                <td><a href={`#/sessions/${encodeURIComponent(a.session_id)}`}>{a.session_id}</a></td>
              </tr>
            ))}
          </tbody>
        </table>
        <Pager offset={offset} limit={LIMIT} count={history.data?.approvals.length ?? 0} onPage={setOffset} />
      </Section>
    </div>
  );
}
