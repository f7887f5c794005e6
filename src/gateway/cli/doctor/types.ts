/**
 * One doctor check's verdict. `ok` and `warn` pass, `fail` makes doctor exit 1, `skip` is a part that is
 * not configured (reported, never a failure). `fix` says what to change; no verdict ever holds a secret.
 */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  name: string;
  status: CheckStatus;
  detail: string;
  fix?: string;
}

export const MARKS: Record<CheckStatus, string> = { ok: '✓', warn: '!', fail: '✗', skip: '–' };
