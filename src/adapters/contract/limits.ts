/**
 * What each platform allows, as data the platform-free renderer and writer read: message size (and how it
 * is measured), split target, edit pacing for DMs and groups, typing renewal, button payload size. The
 * reference tables carry the design numbers of platforms.md §5 and are the config's defaults; adapters are
 * built with the config's pacing (`pacedLimits`) and hand the result to the writer.
 */

export type LengthUnit = 'utf16' | 'codepoints';

export interface PlatformLimits {
  /** Hard maximum of one message's text, in `lengthUnit`, after rendering. */
  maxChars: number;
  lengthUnit: LengthUnit;
  /** Long replies roll to a new message below this length (after rendering). */
  splitTarget: number;
  /** Minimum time between two edits of one live message. */
  minEditIntervalMs: { dm: number; group: number };
  /** Largest button payload in bytes (UTF-8). */
  buttonPayloadBytes: number;
  /** Longest button label, in characters. */
  buttonLabelChars: number;
  /** Most formatting entities one message may carry, where the platform caps them. */
  maxEntities?: number;
  /** How often "typing…" is renewed while a Task runs (it fades after a few seconds); 0 = never. */
  typingRenewMs: number;
}

export const SLACK_LIMITS: PlatformLimits = {
  maxChars: 12_000,
  lengthUnit: 'codepoints',
  splitTarget: 3_500,
  minEditIntervalMs: { dm: 1_500, group: 1_500 },
  buttonPayloadBytes: 2_000,
  buttonLabelChars: 75,
  // assistant.threads.setStatus clears after 2 minutes without a message
  typingRenewMs: 60_000,
};

export const DISCORD_LIMITS: PlatformLimits = {
  maxChars: 2_000,
  lengthUnit: 'codepoints',
  splitTarget: 1_900,
  minEditIntervalMs: { dm: 1_200, group: 1_200 },
  buttonPayloadBytes: 100,
  buttonLabelChars: 80,
  // a typing indicator lasts 10 s
  typingRenewMs: 8_000,
};

export const TELEGRAM_LIMITS: PlatformLimits = {
  maxChars: 4_096,
  lengthUnit: 'utf16',
  splitTarget: 4_000,
  minEditIntervalMs: { dm: 1_000, group: 3_000 },
  buttonPayloadBytes: 64,
  buttonLabelChars: 64,
  maxEntities: 100,
  // sendChatAction shows "typing…" for about 5 s
  typingRenewMs: 4_000,
};

/** The dashboard playground: no platform limits beyond keeping pages light; edits as often as a human can read. */
export const WEB_LIMITS: PlatformLimits = {
  maxChars: 16_000,
  lengthUnit: 'codepoints',
  splitTarget: 15_000,
  minEditIntervalMs: { dm: 100, group: 100 },
  buttonPayloadBytes: 64,
  buttonLabelChars: 64,
  typingRenewMs: 4_000,
};

/** The smallest button payload any platform allows: action payloads must fit it. */
export const MIN_BUTTON_PAYLOAD_BYTES = Math.min(SLACK_LIMITS.buttonPayloadBytes, DISCORD_LIMITS.buttonPayloadBytes, TELEGRAM_LIMITS.buttonPayloadBytes);

/** Length of `text` in the given unit (UTF-16 code units, or Unicode code points). */
export function measureLength(text: string, unit: LengthUnit): number {
  if (unit === 'utf16') return text.length;
  let n = 0;
  for (const _ of text) n++;
  return n;
}

export function editIntervalMs(limits: PlatformLimits, isDM: boolean): number {
  return isDM ? limits.minEditIntervalMs.dm : limits.minEditIntervalMs.group;
}

/** A platform's limits paced by the config's streaming settings (the one source of edit and typing pacing). */
export function pacedLimits(base: PlatformLimits, s: { dm_edit_interval_ms: number; group_edit_interval_ms: number; typing_renew_ms: number }): PlatformLimits {
  return { ...base, minEditIntervalMs: { dm: s.dm_edit_interval_ms, group: s.group_edit_interval_ms }, typingRenewMs: s.typing_renew_ms };
}
