/**
 * Small shared pieces of the pages: a status badge, an error line, an action button that shows its own
 * failure, and Prev/Next paging over `limit`/`offset` lists.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

export function Badge({ state }: { state: string }) {
  return <span class={`badge badge-${state.replace(/[^a-z_]/g, '')}`}>{state}</span>;
}

export function ErrorLine({ error }: { error?: string }) {
  return error ? <p class="error" role="alert">{error}</p> : null;
}

export function Action({ label, run, kind, title }: { label: string; run: () => Promise<unknown>; kind?: 'primary' | 'danger'; title?: string }) {
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string>();
  return (
    <span class="action">
      <button class={kind ?? ''} disabled={busy} title={title} onClick={async () => {
        setBusy(true);
        setErr(undefined);
        try {
          await run();
        } catch (e) {
          setErr((e as Error).message);
        } finally {
          setBusy(false);
        }
      }}>{label}</button>
      {err ? <span class="error">{err}</span> : null}
    </span>
  );
}

export function Pager({ offset, limit, count, onPage }: { offset: number; limit: number; count: number; onPage: (offset: number) => void }) {
  return (
    <div class="pager">
      <button disabled={offset === 0} onClick={() => onPage(Math.max(0, offset - limit))}>← Newer</button>
      <span>{count === 0 ? 'none' : `${offset + 1}–${offset + count}`}</span>
      <button disabled={count < limit} onClick={() => onPage(offset + limit)}>Older →</button>
    </div>
  );
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card">
      <header class="card-head"><h2>{title}</h2>{actions}</header>
      {children}
    </section>
  );
}
