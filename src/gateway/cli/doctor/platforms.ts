/**
 * Doctor's platform checks: each configured bot token is tried with one real, read-only API call through
 * the configured API root — Telegram `getMe`, Slack `auth.test` (Discord has its own file, discord.ts) —
 * and the answer is classified as ok, token rejected, unexpected answer or unreachable; for Slack, the
 * scopes the token was granted (X-OAuth-Scopes) are checked against the adapter's and any missing one is
 * named. A platform without credentials (or disabled in the config) is reported as not configured.
 */
import { missingScopes } from '../../../adapters/slack/scopes';
import type { GatewayConfig } from '../../config';
import { field, probe, str } from './http';
import { notConfigured, type CheckResult } from './types';

const trimSlash = (s: string) => s.replace(/\/+$/, '');

export async function checkTelegram(c: GatewayConfig['telegram'], timeoutMs: number): Promise<CheckResult> {
  const name = 'telegram';
  if (!c.enabled || !c.bot_token) return notConfigured(name, c.enabled);
  const root = trimSlash(c.api_root);
  const r = await probe(`${root}/bot${c.bot_token}/getMe`, { method: 'GET' }, timeoutMs);
  if (r.kind === 'network') return { name, status: 'fail', detail: `cannot reach ${root}: ${r.message}`, fix: 'check the network, or TELEGRAM_API_ROOT if you use your own Bot API server' };
  const result = field(r.json, 'result');
  if (r.status === 200 && field(r.json, 'ok') === true && result) {
    const user = str(field(result, 'username'));
    return { name, status: 'ok', detail: `bot ${user ? `@${user}` : '(no username)'} (id ${str(field(result, 'id')) ?? '?'}) via ${root}, ${c.mode} mode` };
  }
  const description = str(field(r.json, 'description')) ?? 'no description';
  if (r.status === 401 || r.status === 404) {
    return { name, status: 'fail', detail: `${root} rejected the bot token (HTTP ${r.status}: ${description})`, fix: 'set TELEGRAM_BOT_TOKEN to the token @BotFather gave you (format 123456:ABC...)' };
  }
  return { name, status: 'fail', detail: `unexpected answer from ${root} getMe (HTTP ${r.status}: ${description})`, fix: 'check TELEGRAM_API_ROOT and try again' };
}

const SLACK_AUTH_ERRORS = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired', 'no_permission']);

export async function checkSlack(c: GatewayConfig['slack'], timeoutMs: number): Promise<CheckResult> {
  const name = 'slack';
  if (!c.enabled || !c.bot_token) return notConfigured(name, c.enabled);
  const root = c.api_url.endsWith('/') ? c.api_url : `${c.api_url}/`;
  const r = await probe(`${root}auth.test`, { method: 'POST', headers: { authorization: `Bearer ${c.bot_token}`, 'content-type': 'application/x-www-form-urlencoded' }, body: '' }, timeoutMs);
  if (r.kind === 'network') return { name, status: 'fail', detail: `cannot reach ${root}: ${r.message}`, fix: 'check the network, or SLACK_API_URL for GovSlack / Enterprise hosts' };
  if (r.status === 200 && field(r.json, 'ok') === true) {
    const mode = c.mode === 'socket' ? 'Socket Mode' : 'HTTP events at POST /slack/events';
    const who = `bot ${str(field(r.json, 'user')) ?? '?'} in workspace ${str(field(r.json, 'team')) ?? '?'} (${str(field(r.json, 'team_id')) ?? '?'})`;
    const granted = r.headers.get('x-oauth-scopes');
    const missing = granted === null ? [] : missingScopes(granted);
    if (missing.length) {
      return { name, status: 'fail', detail: `${who} lacks the scope${missing.length === 1 ? '' : 's'} ${missing.join(', ')}`, fix: 'add them under OAuth & Permissions (config/slack-manifest.yaml lists every scope) and reinstall the app to the workspace' };
    }
    return { name, status: 'ok', detail: `${who} via ${root}, ${mode}` };
  }
  const error = str(field(r.json, 'error'));
  if (r.status === 401 || (error !== undefined && SLACK_AUTH_ERRORS.has(error))) {
    return { name, status: 'fail', detail: `${root} rejected the bot token (${error ?? `HTTP ${r.status}`})`, fix: 'set SLACK_BOT_TOKEN to the Bot User OAuth Token (xoxb-...) of the app installed in your workspace' };
  }
  return { name, status: 'fail', detail: `unexpected answer from ${root}auth.test (HTTP ${r.status}${error ? `: ${error}` : ''})`, fix: 'check SLACK_API_URL and try again' };
}
