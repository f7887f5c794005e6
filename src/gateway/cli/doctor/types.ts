/**
 * One doctor check's verdict. `ok` and `warn` pass, `fail` makes doctor exit 1, `skip` is a part that is
 * not configured (reported, never a failure). `fix` says what to change; no verdict ever holds a secret.
 */
import { offHint, type ChatPlatform } from '../../config';

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  name: string;
  status: CheckStatus;
  detail: string;
  fix?: string;
}

export const MARKS: Record<CheckStatus, string> = { ok: '✓', warn: '!', fail: '✗', skip: '–' };

/** A chat platform that is off: reported (never failed) with what turns it on. */
export function notConfigured(platform: ChatPlatform, enabled: boolean): CheckResult {
  const off = offHint(platform, enabled);
  return { name: platform, status: 'skip', detail: off.reason === 'disabled' ? off.hint : `not configured (${off.hint})` };
}
