/**
 * The login page, the only page served before login: the admin token or the admin password goes to
 * POST /api/auth/login; on success the gateway has set the session cookie and a reload brings the app.
 * A wrong credential shows the gateway's message and nothing else.
 */
import { render } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../lib/api';

function Login() {
  const [mode, setMode] = useState<'token' | 'password'>('token');
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await api('/api/auth/login', { body: mode === 'token' ? { token: secret } : { password: secret } });
      location.replace('/');
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <form class="card" onSubmit={submit}>
        <h1>🐧 penguin-gateway</h1>
        <div class="tabs" role="tablist">
          <button type="button" role="tab" aria-selected={mode === 'token'} onClick={() => setMode('token')}>Admin token</button>
          <button type="button" role="tab" aria-selected={mode === 'password'} onClick={() => setMode('password')}>Password</button>
        </div>
        <label>
          {mode === 'token' ? 'Admin token' : 'Admin password'}
          <input name="secret" type="password" autocomplete={mode === 'token' ? 'off' : 'current-password'} value={secret} onInput={(e) => setSecret((e.target as HTMLInputElement).value)} required autofocus />
        </label>
        <button class="primary" type="submit" disabled={busy || secret === ''}>Log in</button>
        {error ? <p class="error" role="alert">{error}</p> : null}
        <p class="hint">The token is PENGUIN_ADMIN_TOKEN, or the one printed (or written to &lt;data root&gt;/admin-token) at first start. Set a password with <code>penguin-gateway admin set-password</code>.</p>
      </form>
    </main>
  );
}

render(<Login />, document.getElementById('root')!);
