/**
 * A copy of the config safe to print or show in the dashboard: every credential is replaced by `(set)`
 * (the database URL keeps all but its password),
 * so `doctor` and the overview page can say what is configured without ever rendering a secret.
 */
import { redactDatabaseUrl } from '../store/postgres/url';
import type { GatewayConfig } from './types';

const SET = '(set)';
const mask = (v: string | undefined) => (v === undefined ? undefined : SET);

export function redactConfig(c: GatewayConfig): GatewayConfig {
  const out: GatewayConfig = structuredClone(c);
  if (out.admin_token !== undefined) out.admin_token = SET;
  if (out.model.api_key !== undefined) out.model.api_key = SET;
  if (out.database_url !== undefined) out.database_url = redactDatabaseUrl(out.database_url);
  out.telegram.bot_token = mask(out.telegram.bot_token);
  out.telegram.webhook_secret = mask(out.telegram.webhook_secret);
  out.slack.bot_token = mask(out.slack.bot_token);
  out.slack.signing_secret = mask(out.slack.signing_secret);
  out.slack.app_token = mask(out.slack.app_token);
  out.discord.bot_token = mask(out.discord.bot_token);
  for (const section of [out.telegram, out.slack, out.discord] as unknown as Record<string, unknown>[]) {
    for (const k of Object.keys(section)) if (section[k] === undefined) delete section[k];
  }
  return out;
}
