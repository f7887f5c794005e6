/**
 * Deciding a pairing code, shared by the admin API and the CLI: the code is checked for shape, the store
 * decides it (approving also allowlists the user, atomically), and a refusal comes back as a status and
 * code the caller can show: 404 `pairing_not_found`, 409 `already_decided`, 409 `pairing_expired`.
 */
import { PAIRING_CODE_RE, type AccessStore, type PairingRow } from '../store';

export type PairingOutcome =
  | { ok: true; row: PairingRow }
  | { ok: false; status: 400 | 404 | 409; code: 'bad_request' | 'pairing_not_found' | 'already_decided' | 'pairing_expired'; message: string };

export const PAIRING_CODE_EXPECTED = 'a pairing code of 8 letters and digits (e.g. K7M2QX9P)';

export function normalizePairingCode(code: string): string | undefined {
  const c = code.trim().toUpperCase();
  return PAIRING_CODE_RE.test(c) ? c : undefined;
}

export async function decidePairingCode(store: AccessStore, code: string, decision: 'approved' | 'denied', actor: string | null): Promise<PairingOutcome> {
  const c = normalizePairingCode(code);
  if (!c) return { ok: false, status: 400, code: 'bad_request', message: `code: expected ${PAIRING_CODE_EXPECTED}, found ${JSON.stringify(code)}` };
  const r = await store.decidePairing(c, decision, actor);
  if (r.ok) return { ok: true, row: r.row };
  switch (r.reason) {
    case 'not_found':
      return { ok: false, status: 404, code: 'pairing_not_found', message: `no pairing request with code ${c}` };
    case 'already_decided':
      return { ok: false, status: 409, code: 'already_decided', message: `pairing code ${c} was already ${r.row?.state ?? 'decided'}` };
    case 'expired':
      return { ok: false, status: 409, code: 'pairing_expired', message: `pairing code ${c} has expired; the user gets a new one by messaging the bot again` };
  }
}
