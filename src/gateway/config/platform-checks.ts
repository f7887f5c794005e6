/**
 * Cross-checks between a platform's file section and its credentials that no single schema can express
 * (gateway.md §8): a Telegram webhook needs its public URL and secret in the file; an enabled Slack bot
 * token needs the credential of its mode (Socket Mode app token, or HTTP signing secret) in the environment.
 */
import { ENV_SOURCE, type EnvValues } from './env';
import { makeError, type ConfigError } from './errors';
import type { ReportError } from './routes';
import type { FileConfig } from './schema';
import type { SlackConfig } from './types';

export function checkTelegramWebhook(tg: FileConfig['telegram'], report: ReportError): void {
  if (!tg.enabled || tg.mode !== 'webhook') return;
  if (tg.webhook_url === undefined) report(['telegram', 'webhook_url'], 'the public https URL Telegram posts updates to, when telegram.mode is webhook');
  if (tg.webhook_secret === undefined) report(['telegram', 'webhook_secret'], 'a secret token (1-256 characters A-Z a-z 0-9 _ -) when telegram.mode is webhook');
}

/** At most one error: the credential the resolved Slack mode still lacks. `shown` names the config file. */
export function checkSlackCredentials(sl: FileConfig['slack'], ev: EnvValues, mode: SlackConfig['mode'], shown: string): ConfigError[] {
  if (!sl.enabled || !ev.slackBotToken) return [];
  if (mode === undefined) {
    return [makeError({ source: ENV_SOURCE, path: 'SLACK_BOT_TOKEN', expected: 'SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode) alongside it', found: 'neither' })];
  }
  if (mode === 'socket' && !ev.slackAppToken) {
    return [makeError({ source: ENV_SOURCE, path: 'SLACK_APP_TOKEN', expected: `an app-level token (xapp-...) because ${shown}: slack.mode is socket`, found: 'nothing' })];
  }
  if (mode === 'http' && !ev.slackSigningSecret) {
    return [makeError({ source: ENV_SOURCE, path: 'SLACK_SIGNING_SECRET', expected: `the app's signing secret because ${shown}: slack.mode is http`, found: 'nothing' })];
  }
  return [];
}
