/**
 * SlackAdapterConfig: what the gateway hands the Slack adapter (from `config.slack` and the environment),
 * validated with zod at the boundary so a bad value fails with the field's name. HTTP mode needs the signing
 * secret (events and interactivity arrive at POST /slack/events on the gateway's listener); Socket Mode
 * needs the app-level token (xapp-…). The API URL is the Web API root every client uses.
 */
import * as z from 'zod';
import type { StreamingSettings } from '../contract/binding';
import { millisecondsSchema, httpUrlSchema, streamingSettingsSchema, parseAdapterConfig } from '../contract/config-schema';

export interface SlackAdapterConfig {
  botToken: string;
  mode: 'http' | 'socket';
  signingSecret?: string;
  appToken?: string;
  /** Web API root, e.g. https://slack.com/api/ (GovSlack, Enterprise hosts, a fake on 127.0.0.1). */
  apiUrl: string;
  /** Later messages in a thread the bot answered continue it without a mention. */
  threadFollowUp: boolean;
  /** Stream replies in threads with chat.startStream / appendStream / stopStream (else post + update). */
  nativeStreaming: boolean;
  /** Socket Mode: re-open a connection that delivered nothing for this long (0 = never). */
  socketSilenceMs: number;
  /** Edit and typing pacing from the gateway config; absent = the platform's defaults (SLACK_LIMITS). */
  streaming?: StreamingSettings;
}

export const slackAdapterConfigSchema = z
  .object({
    botToken: z.string({ error: 'botToken must be a string' }).regex(/^xox[a-z]-[A-Za-z0-9-]+$/, 'botToken must be a bot token (xoxb-…, the Bot User OAuth Token)'),
    mode: z.enum(['http', 'socket'], { error: 'mode must be "http" or "socket"' }),
    signingSecret: z.string().min(1, 'signingSecret must not be empty').optional(),
    appToken: z.string().regex(/^xapp-[A-Za-z0-9-]+$/, 'appToken must be an app-level token (xapp-…)').optional(),
    apiUrl: httpUrlSchema('apiUrl'),
    threadFollowUp: z.boolean({ error: 'threadFollowUp must be true or false' }),
    nativeStreaming: z.boolean({ error: 'nativeStreaming must be true or false' }),
    socketSilenceMs: millisecondsSchema('socketSilenceMs'),
    streaming: streamingSettingsSchema,
  })
  .superRefine((c, ctx) => {
    if (c.mode === 'socket' && c.appToken === undefined) ctx.addIssue({ code: 'custom', path: ['appToken'], message: 'appToken (SLACK_APP_TOKEN) is required in Socket Mode' });
    if (c.mode === 'http' && c.signingSecret === undefined) ctx.addIssue({ code: 'custom', path: ['signingSecret'], message: 'signingSecret (SLACK_SIGNING_SECRET) is required in HTTP mode' });
  });

/** Validated config; throws an Error naming every bad field (never a value: they are credentials). */
export function parseSlackConfig(input: SlackAdapterConfig): SlackAdapterConfig {
  return parseAdapterConfig(slackAdapterConfigSchema, 'Slack', input);
}

/** The gateway's `slack` config section, as data (the adapter does not import the gateway). */
export interface SlackSection {
  bot_token?: string;
  signing_secret?: string;
  app_token?: string;
  api_url: string;
  mode?: 'socket' | 'http';
  thread_follow_up: boolean;
  native_streaming: boolean;
  socket_silence_ms: number;
  streaming: StreamingSettings;
}

export function slackConfigOf(s: SlackSection): SlackAdapterConfig {
  return {
    botToken: s.bot_token ?? '',
    mode: s.mode ?? (s.app_token ? 'socket' : 'http'),
    ...(s.signing_secret ? { signingSecret: s.signing_secret } : {}),
    ...(s.app_token ? { appToken: s.app_token } : {}),
    apiUrl: s.api_url,
    threadFollowUp: s.thread_follow_up,
    nativeStreaming: s.native_streaming,
    socketSilenceMs: s.socket_silence_ms,
    streaming: s.streaming,
  };
}

/** The root with exactly one trailing slash (the SDK appends method names). */
export function normalizeApiUrl(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}
