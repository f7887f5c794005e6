/**
 * What turns each chat platform on, worded once for everything that tells the operator (the start-up
 * summary, doctor): the environment variables its adapter needs, and why a platform is off under a config.
 */
import type { ChatPlatform } from './user-ref';

export const PLATFORM_CREDENTIALS: Record<ChatPlatform, string> = {
  telegram: 'TELEGRAM_BOT_TOKEN',
  slack: 'SLACK_BOT_TOKEN and SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode)',
  discord: 'DISCORD_BOT_TOKEN or DISCORD_TOKEN',
};

export interface PlatformOff {
  reason: 'disabled' | 'no_credentials';
  /** "disabled in the config (slack.enabled: false)" or "set TELEGRAM_BOT_TOKEN to enable it". */
  hint: string;
}

/** Why `platform` (its config section) is not started and how to turn it on; undefined when it is configured. */
export function platformOff(platform: ChatPlatform, section: { enabled: boolean; configured: boolean }): PlatformOff | undefined {
  return section.configured ? undefined : offHint(platform, section.enabled);
}

/** The hint for a platform known to be off: turned off in the config, or enabled without credentials. */
export function offHint(platform: ChatPlatform, enabled: boolean): PlatformOff {
  if (!enabled) return { reason: 'disabled', hint: `disabled in the config (${platform}.enabled: false)` };
  return { reason: 'no_credentials', hint: `set ${PLATFORM_CREDENTIALS[platform]} to enable it` };
}
