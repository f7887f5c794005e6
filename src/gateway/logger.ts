/**
 * The gateway's structured logger (pino, JSON lines). Credentials never reach a log line: authorization
 * headers and every field named like a token, key or secret are censored at any of the depths the
 * gateway logs objects at, and with a redactor every known secret value is masked in the finished line.
 * Pass `destination` to capture output (tests) instead of stdout.
 */
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { SecretRedactor } from '../adapters/render';
import type { GatewayConfig } from './config';

export type { Logger } from 'pino';

const SECRET_KEYS = [
  'authorization',
  'Authorization',
  'cookie',
  'token',
  'bot_token',
  'app_token',
  'admin_token',
  'api_key',
  'apiKey',
  'signing_secret',
  'webhook_secret',
  'secret',
  'password',
];

/** `key`, `*.key`, `*.*.key` and the header spellings pino-http-style objects use. */
export const REDACT_PATHS: readonly string[] = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  ...SECRET_KEYS.map((k) => `*.*.${k}`),
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
];

export const REDACTED = '[redacted]';

export function createLogger(config: Pick<GatewayConfig, 'logging'>, destination?: DestinationStream, redactor?: SecretRedactor): Logger {
  const options: LoggerOptions = {
    level: config.logging.level,
    base: { name: 'penguin-gateway' },
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    ...(redactor ? { hooks: { streamWrite: (line: string) => redactor.redact(line) } } : {}),
  };
  return destination ? pino(options, destination) : pino(options);
}
