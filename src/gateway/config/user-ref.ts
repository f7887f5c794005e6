/**
 * Platform names and `platform:user_id` references, the one spelling used for approvers, access lists,
 * `PENGUIN_ALLOW_USERS`, approval requesters and the allowlist. Ids are checked per platform (Telegram
 * and Discord ids are decimal, Slack ids upper-case alphanumerics) so a typo fails at load, not at a click.
 */
export const PLATFORMS = ['telegram', 'slack', 'discord', 'web'] as const;
export type Platform = (typeof PLATFORMS)[number];
/** Platforms that reach people through a chat service (the web playground is behind the admin login). */
export const CHAT_PLATFORMS = ['telegram', 'slack', 'discord'] as const;
export type ChatPlatform = (typeof CHAT_PLATFORMS)[number];

const ID_PATTERNS: Record<Platform, RegExp> = {
  telegram: /^[1-9]\d{0,19}$/,
  slack: /^[A-Z0-9]{2,32}$/,
  discord: /^[1-9]\d{0,19}$/,
  web: /^[A-Za-z0-9._@-]{1,64}$/,
};

export const USER_REF_EXPECTED = 'platform:user_id with platform one of telegram|slack|discord|web (e.g. telegram:42, slack:U123)';

export interface UserRef {
  platform: Platform;
  userId: string;
}

export function isPlatform(s: string): s is Platform {
  return (PLATFORMS as readonly string[]).includes(s);
}

/** Parses `platform:user_id`; undefined when the platform is unknown or the id does not fit it. */
export function parseUserRef(s: string): UserRef | undefined {
  const i = s.indexOf(':');
  if (i <= 0) return undefined;
  const platform = s.slice(0, i);
  const userId = s.slice(i + 1);
  if (!isPlatform(platform) || !ID_PATTERNS[platform].test(userId)) return undefined;
  return { platform, userId };
}

export function formatUserRef(ref: UserRef): string {
  return `${ref.platform}:${ref.userId}`;
}
