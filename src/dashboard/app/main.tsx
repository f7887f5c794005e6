/**
 * The dashboard app (served only to a logged-in operator): reads the login's CSRF token, then renders the
 * navigation and the page the URL hash names (#/overview, #/sessions/<id>, …). Logout forgets the login
 * on the gateway and returns to the login page.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, setCsrf } from '../lib/api';
import { useRoute, PAGES } from './router';

function App() {
  const [ready, setReady] = useState(false);
  const r = useRoute();
  useEffect(() => {
    void api<{ csrf: string }>('/api/auth/session').then((s) => {
      setCsrf(s.csrf);
      setReady(true);
    });
  }, []);
  const page = PAGES.find((p) => p.path === r.page) ?? PAGES[0];
  const logout = async () => {
    await api('/api/auth/logout', { method: 'POST' });
    location.replace('/');
  };
  return (
    <div class="shell">
      <header class="top">
        <span class="brand">🐧 penguin-gateway</span>
        <nav>
          {PAGES.map((p) => <a key={p.path} href={`#/${p.path}`} aria-current={p.path === page.path ? 'page' : undefined}>{p.title}</a>)}
        </nav>
        <button class="logout" onClick={logout}>Log out</button>
      </header>
      <main class="page" data-page={page.path}>
        {ready ? <page.Component args={r.args} /> : <p>Loading…</p>}
      </main>
    </div>
  );
}

render(<App />, document.getElementById('root')!);
