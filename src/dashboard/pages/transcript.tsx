/**
 * One session's transcript: its header (title, platform, route, mode, status), the OmniMessage history
 * rendered by TranscriptView, live while the page is open (the session's trace over SSE appends what the
 * engine writes), and Abort while a Task runs. Subagent transcripts load nested under their call.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../lib/api';
import { ago, tokens } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { Action, Badge, ErrorLine } from '../lib/ui';
import type { Approval, OmniMessage, SessionRow } from '../lib/types';
import { TranscriptView } from './transcript-view';

interface Messages { messages: OmniMessage[]; approvals: Approval[]; problems: { message: string }[] }

export function TranscriptPage({ sessionId }: { sessionId: string }) {
  const id = encodeURIComponent(sessionId);
  const session = useLoad(() => api<{ session: SessionRow }>(`/api/sessions/${id}`), [sessionId], 3000);
  const history = useLoad(() => api<Messages>(`/api/sessions/${id}/messages`), [sessionId]);
  const [live, setLive] = useState<OmniMessage[]>([]);
  const [streaming, setStreaming] = useState(false);

  useEffect(() => {
    setLive([]);
    const es = new EventSource(`/api/sessions/${id}/events`);
    es.addEventListener('open', () => setStreaming(true));
    es.addEventListener('error', () => setStreaming(false));
    es.addEventListener('messages', (e) => {
      const batch = JSON.parse((e as MessageEvent<string>).data) as OmniMessage[];
      setLive((l) => [...l, ...batch]);
      // Approvals (who decided) are rows, not trace records: refresh them when a decision is traced.
      if (batch.some((m) => m.payload?.type === 'approval_decision')) void history.reload();
    });
    return () => es.close();
  }, [sessionId]);

  const s = session.data?.session;
  const h = history.data;
  // A reload of the history already holds what the feed delivered before it: keep only what is newer.
  const lastAt = h?.messages.length ? h.messages[h.messages.length - 1].timestamp : '';
  const all = h ? [...h.messages, ...live.filter((m) => m.timestamp > lastAt)] : [];
  return (
    <div class="transcript-page">
      <p><a href="#/sessions">← Sessions</a></p>
      <ErrorLine error={session.error ?? history.error} />
      {s ? (
        <header class="card session-head">
          <h1>{s.title ?? s.session_id}</h1>
          <div class="facts">
            <span>{s.platform ?? '—'}</span><span>route {s.route ?? '—'}</span><span>{s.project_id}/{s.agent_id}</span>
            <span>mode {s.approval_mode}</span><Badge state={s.status} /><span>{tokens(s.total)} tokens</span><span>active {ago(s.last_active_at)}</span>
            <span class={streaming ? 'live on' : 'live'}>{streaming ? '● live' : '○ not live'}</span>
          </div>
          {s.parent_session_id ? <p>Subagent of <a href={`#/sessions/${encodeURIComponent(s.parent_session_id)}`}>{s.parent_session_id}</a></p> : null}
          {s.status === 'running' ? <Action label="Abort the running task" kind="danger" run={async () => { await api(`/api/sessions/${id}/abort`, { method: 'POST' }); await session.reload(); }} /> : null}
        </header>
      ) : null}
      {h?.problems.map((p) => <p class="banner warn" key={p.message}>{p.message}</p>)}
      {h ? <TranscriptView messages={all} approvals={h.approvals} /> : <p>Loading…</p>}
    </div>
  );
}
