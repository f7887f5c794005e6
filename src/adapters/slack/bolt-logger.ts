/**
 * Bolt's and the Socket Mode client's logger interface on top of the gateway's pino logger, so SDK messages
 * land in the same JSON log (tagged `sdk`). Their debug output can echo payloads, so it is kept at debug;
 * nothing here ever formats a token.
 */
import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from 'pino';

const text = (msg: unknown[]) => msg.map((m) => (typeof m === 'string' ? m : m instanceof Error ? m.message : JSON.stringify(m))).join(' ');

export function boltLogger(logger: Logger, sdk: string): BoltLogger {
  const log = logger.child({ sdk });
  let level = LogLevel.INFO;
  return {
    debug: (...m) => log.debug(text(m)),
    info: (...m) => log.debug(text(m)),
    warn: (...m) => log.warn(text(m)),
    error: (...m) => log.error(text(m)),
    setLevel: (l) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
