/**
 * Renders transcript items (lib/transcript-model.ts): Markdown for user and assistant text, thinking
 * collapsed, tool calls with their arguments and output and the approval with who decided, subagents as
 * nested transcripts loaded when opened, banners for compaction, retries and aborts.
 */
import { useState } from 'preact/hooks';
import { api } from '../lib/api';
import { Markdown } from '../lib/markdown';
import { transcriptItems, type Item } from '../lib/transcript-model';
import type { Approval, OmniMessage } from '../lib/types';

const time = (iso: string) => new Date(iso).toLocaleTimeString(undefined, { hour12: false });

export function TranscriptView({ messages, approvals }: { messages: OmniMessage[]; approvals: Approval[] }) {
  const items = transcriptItems(messages, approvals);
  return <ol class="transcript">{items.map((it, i) => <li key={i} class={`item item-${it.kind}`}><ItemView item={it} /></li>)}</ol>;
}

function ItemView({ item }: { item: Item }) {
  switch (item.kind) {
    case 'meta':
      return <div class="banner info">Session started · {item.model}{item.source ? ` · ${item.source}` : ''} <time>{time(item.at)}</time></div>;
    case 'text':
      return (
        <div class={`bubble ${item.role}`}>
          <div class="who">{item.role === 'user' ? (item.sender ? `user (${item.sender})` : 'user') : 'assistant'} <time>{time(item.at)}</time></div>
          <Markdown text={item.text} />
        </div>
      );
    case 'thinking':
      return <details class="thinking"><summary>💭 Thinking</summary><pre>{item.text}</pre></details>;
    case 'tool':
      return <ToolCall item={item} />;
    case 'banner':
      return <div class={`banner ${item.tone}`}>{item.text} <time>{time(item.at)}</time></div>;
  }
}

function ToolCall({ item }: { item: Extract<Item, { kind: 'tool' }> }) {
  const verdict = item.decision === 'allow' ? '✅ Allowed' : item.decision === 'deny' ? '⛔ Denied' : item.decision === 'forbidden' ? '🚫 Forbidden' : undefined;
  return (
    <div class="tool">
      <div class="tool-head"><span class="tool-name">⚙️ {item.name}</span> <time>{time(item.at)}</time></div>
      {verdict ? <div class={`decision decision-${item.decision}`}>{verdict} by {item.decidedBy}</div> : null}
      <details open><summary>Arguments</summary><pre class="args">{item.args}</pre></details>
      {item.output !== undefined ? <details><summary>Output</summary><pre class="output">{item.output}</pre></details> : <div class="muted">no output yet</div>}
      {item.subagents.map((id) => <Subagent key={id} sessionId={id} />)}
    </div>
  );
}

function Subagent({ sessionId }: { sessionId: string }) {
  const [data, setData] = useState<{ messages: OmniMessage[]; approvals: Approval[] }>();
  const [error, setError] = useState<string>();
  const load = async (e: Event) => {
    if (!(e.target as HTMLDetailsElement).open || data) return;
    try {
      setData(await api(`/api/sessions/${encodeURIComponent(sessionId)}/messages`));
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <details class="subagent" onToggle={load}>
      <summary>↳ Subagent {sessionId} · <a href={`#/sessions/${encodeURIComponent(sessionId)}`}>open</a></summary>
      {error ? <p class="error">{error}</p> : data ? <TranscriptView messages={data.messages} approvals={data.approvals} /> : <p>Loading…</p>}
    </details>
  );
}
