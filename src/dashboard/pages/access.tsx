/**
 * Access: pending pairing requests (users and groups that asked for a code) with Approve / Deny — the
 * gateway tells them in chat — and the allowlist per platform with Remove and an Add form; entries from
 * PENGUIN_ALLOW_USERS are shown as fixed (they live in the environment, not the database).
 */
import { useState } from 'preact/hooks';
import { api, qs } from '../lib/api';
import { ago, when } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { Action, ErrorLine, Section } from '../lib/ui';
import type { Allowed, Pairing } from '../lib/types';

const PLATFORMS = ['', 'telegram', 'slack', 'discord', 'web'];

export function AccessPage() {
  const pairing = useLoad(() => api<{ requests: Pairing[] }>('/api/pairing?state=pending'), [], 5000);
  const [platform, setPlatform] = useState('');
  const allow = useLoad(() => api<{ users: Allowed[]; from_env: string[] }>(`/api/allowlist${qs({ platform })}`), [platform]);
  const [user, setUser] = useState('');
  const [addError, setAddError] = useState<string>();
  const decide = (code: string, verb: 'approve' | 'deny') => async () => {
    await api(`/api/pairing/${code}/${verb}`, { method: 'POST' });
    await Promise.all([pairing.reload(), allow.reload()]);
  };
  const add = async (e: Event) => {
    e.preventDefault();
    setAddError(undefined);
    try {
      await api('/api/allowlist', { body: { user } });
      setUser('');
      await allow.reload();
    } catch (err) {
      setAddError((err as Error).message);
    }
  };
  return (
    <div>
      <h1>Access</h1>
      <Section title="Pairing requests">
        <ErrorLine error={pairing.error} />
        {pairing.data?.requests.length === 0 ? <p class="muted">No pending pairing requests.</p> : null}
        <table>
          <thead><tr><th>Code</th><th>Who</th><th>Asked</th><th>Expires</th><th /></tr></thead>
          <tbody>
            {(pairing.data?.requests ?? []).map((p) => (
              <tr key={p.code}>
                <td><code>{p.code}</code></td>
                <td>{p.platform} {p.kind} {p.user_id}{p.user_name ? ` (${p.user_name})` : ''}</td>
                <td>{ago(p.created_at)}</td><td>{when(p.expires_at)}</td>
                <td class="buttons"><Action label="Approve" kind="primary" run={decide(p.code, 'approve')} /><Action label="Deny" kind="danger" run={decide(p.code, 'deny')} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
      <Section title="Allowlist" actions={
        <select name="platform" value={platform} onChange={(e) => setPlatform((e.target as HTMLSelectElement).value)}>{PLATFORMS.map((p) => <option key={p} value={p}>{p || 'every platform'}</option>)}</select>
      }>
        <ErrorLine error={allow.error} />
        <form class="inline" onSubmit={add}>
          <input name="user" value={user} onInput={(e) => setUser((e.target as HTMLInputElement).value)} placeholder="platform:user_id, e.g. telegram:42" required />
          <button type="submit">Add</button>
          {addError ? <span class="error">{addError}</span> : null}
        </form>
        <table>
          <thead><tr><th>Who</th><th>Added by</th><th>When</th><th /></tr></thead>
          <tbody>
            {(allow.data?.users ?? []).map((u) => (
              <tr key={`${u.platform}:${u.kind}:${u.user_id}`}>
                <td>{u.platform}:{u.user_id}{u.kind === 'group' ? ' (group)' : ''}</td><td>{u.added_by ?? '—'}</td><td>{when(u.created_at)}</td>
                <td>{u.kind === 'user' ? <Action label="Remove" kind="danger" run={async () => { await api(`/api/allowlist/${encodeURIComponent(`${u.platform}:${u.user_id}`)}`, { method: 'DELETE' }); await allow.reload(); }} /> : null}</td>
              </tr>
            ))}
            {(allow.data?.from_env ?? []).map((u) => <tr key={`env-${u}`}><td>{u}</td><td colSpan={3} class="muted">from PENGUIN_ALLOW_USERS</td></tr>)}
          </tbody>
        </table>
      </Section>
    </div>
  );
}
