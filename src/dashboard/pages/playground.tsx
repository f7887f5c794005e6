/**
 * Playground: a chat with the agent through the `web` adapter, the way to try the gateway with no chat
 * platform. Messages go to POST /api/web/conversations/<id>/messages; the conversation's events (SSE) bring
 * the bot's reply as it streams (posts and edits in place) and approval cards, whose buttons press through
 * POST …/actions. The conversation id is kept in this browser; "New conversation" starts another.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../lib/api';
import { Markdown } from '../lib/markdown';
import { ErrorLine } from '../lib/ui';
import type { WebMessage } from '../lib/types';

const KEY = 'penguin.playground.conversation';
const newId = () => `pg-${Math.random().toString(36).slice(2, 10)}`;

function conversationId(): string {
  const have = localStorage.getItem(KEY);
  if (have && /^[A-Za-z0-9_-]{1,64}$/.test(have)) return have;
  const id = newId();
  localStorage.setItem(KEY, id);
  return id;
}

export function PlaygroundPage() {
  const [conv, setConv] = useState(conversationId);
  const [messages, setMessages] = useState<WebMessage[]>([]);
  const [text, setText] = useState('');
  const [error, setError] = useState<string>();
  const [note, setNote] = useState<string>();
  const end = useRef<HTMLDivElement>(null);
  const base = `/api/web/conversations/${encodeURIComponent(conv)}`;

  useEffect(() => {
    setMessages([]);
    const upsert = (m: WebMessage) => setMessages((list) => {
      const i = list.findIndex((x) => x.id === m.id);
      return i < 0 ? [...list, m] : list.map((x) => (x.id === m.id ? m : x));
    });
    const es = new EventSource(`${base}/events`);
    es.addEventListener('message', (e) => upsert(JSON.parse((e as MessageEvent<string>).data).message));
    es.addEventListener('edit', (e) => upsert(JSON.parse((e as MessageEvent<string>).data).message));
    es.addEventListener('delete', (e) => {
      const id = JSON.parse((e as MessageEvent<string>).data).messageId as string;
      setMessages((list) => list.filter((x) => x.id !== id));
    });
    es.addEventListener('answer', (e) => setNote(JSON.parse((e as MessageEvent<string>).data).text));
    // What was said before this page opened; events that raced the load win (they are newer).
    void api<{ messages: WebMessage[] }>(`${base}/messages`).then((r) => setMessages((live) => [...r.messages.filter((m) => !live.some((l) => l.id === m.id)), ...live]));
    return () => es.close();
  }, [conv]);

  useEffect(() => end.current?.scrollIntoView({ block: 'end' }), [messages]);

  const send = async (e: Event) => {
    e.preventDefault();
    const t = text.trim();
    if (!t) return;
    setError(undefined);
    try {
      await api(`${base}/messages`, { body: { text: t } });
      setText('');
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const press = async (m: WebMessage, payload: string) => {
    setError(undefined);
    try {
      await api(`${base}/actions`, { body: { message_id: m.id, payload } });
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const fresh = () => {
    const id = newId();
    localStorage.setItem(KEY, id);
    setNote(undefined);
    setConv(id);
  };
  return (
    <div class="playground">
      <header class="card-head"><h1>Playground</h1><span class="muted small">conversation {conv}</span><button onClick={fresh}>New conversation</button></header>
      <div class="chat" aria-live="polite">
        {messages.length === 0 ? <p class="muted">Say something to the agent. Tool calls that need consent show Allow / Deny here.</p> : null}
        {messages.map((m) => (
          <div key={m.id} class={`bubble ${m.author === 'user' ? 'user' : 'assistant'} ${m.final ? 'final' : 'streaming'}`} data-message={m.id}>
            <Markdown text={m.text} />
            {m.buttons.length ? (
              <div class="buttons">{m.buttons.map((b) => <button key={b.payload} class={b.style === 'danger' ? 'danger' : b.style === 'primary' ? 'primary' : ''} onClick={() => press(m, b.payload)}>{b.label}</button>)}</div>
            ) : null}
          </div>
        ))}
        <div ref={end} />
      </div>
      {note ? <p class="note">{note}</p> : null}
      <ErrorLine error={error} />
      <form class="composer" onSubmit={send}>
        <textarea name="text" rows={2} value={text} placeholder="Message the agent" onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => { if (e.key === 'Enter' && !e.shiftKey) void send(e); }} />
        <button class="primary" type="submit" disabled={text.trim() === ''}>Send</button>
      </form>
    </div>
  );
}
