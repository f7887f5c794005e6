/**
 * The permissions the adapter uses (API name, the label Discord's settings show, what it is for, the bit
 * from Discord's permission table) and the invite URL that grants exactly them (scopes `bot` and
 * `applications.commands`), computed from those bits so the README's link and `doctor`'s checks never drift
 * from the code. No SDK import: `doctor` loads this and needs no Discord transport (the bits are checked
 * against discord.js's PermissionFlagsBits in the tests).
 */

export const REQUIRED_PERMISSIONS = [
  { name: 'ViewChannel', label: 'View Channels', bit: 1n << 10n, why: 'see the channels it is asked in' },
  { name: 'SendMessages', label: 'Send Messages', bit: 1n << 11n, why: 'answer in channels and DMs' },
  { name: 'SendMessagesInThreads', label: 'Send Messages in Threads', bit: 1n << 38n, why: 'answer in its threads' },
  { name: 'CreatePublicThreads', label: 'Create Public Threads', bit: 1n << 35n, why: 'open a thread per conversation' },
  { name: 'ReadMessageHistory', label: 'Read Message History', bit: 1n << 16n, why: 'open threads on messages and react to them' },
  { name: 'AddReactions', label: 'Add Reactions', bit: 1n << 6n, why: 'acknowledge a message added to a running task (👀)' },
] as const;

/** Administrator: every permission, overwrites notwithstanding. */
export const ADMINISTRATOR = 1n << 3n;

export const REQUIRED_PERMISSION_BITS: bigint = REQUIRED_PERMISSIONS.reduce((a, p) => a | p.bit, 0n);

export function inviteUrl(applicationId: string): string {
  const q = new URLSearchParams({ client_id: applicationId, scope: 'bot applications.commands', permissions: REQUIRED_PERMISSION_BITS.toString() });
  return `https://discord.com/oauth2/authorize?${q.toString()}`;
}

/** The required permissions a permission bitfield lacks, by the label Discord's settings show. */
export function missingPermissions(granted: bigint): string[] {
  if ((granted & ADMINISTRATOR) !== 0n) return [];
  return REQUIRED_PERMISSIONS.filter((p) => (granted & p.bit) === 0n).map((p) => p.label);
}
