/**
 * The permissions the adapter uses (API name, the label Discord's settings show, what it is for), and the invite URL that grants exactly
 * them (scopes `bot` and `applications.commands`), computed from discord.js's permission bits so the
 * README's link and `doctor`'s checks never drift from the code.
 */
import { PermissionFlagsBits } from 'discord.js';

export const REQUIRED_PERMISSIONS = [
  { name: 'ViewChannel', label: 'View Channels', bit: PermissionFlagsBits.ViewChannel, why: 'see the channels it is asked in' },
  { name: 'SendMessages', label: 'Send Messages', bit: PermissionFlagsBits.SendMessages, why: 'answer in channels and DMs' },
  { name: 'SendMessagesInThreads', label: 'Send Messages in Threads', bit: PermissionFlagsBits.SendMessagesInThreads, why: 'answer in its threads' },
  { name: 'CreatePublicThreads', label: 'Create Public Threads', bit: PermissionFlagsBits.CreatePublicThreads, why: 'open a thread per conversation' },
  { name: 'ReadMessageHistory', label: 'Read Message History', bit: PermissionFlagsBits.ReadMessageHistory, why: 'open threads on messages and react to them' },
  { name: 'AddReactions', label: 'Add Reactions', bit: PermissionFlagsBits.AddReactions, why: 'acknowledge a message added to a running task (👀)' },
] as const;

export const REQUIRED_PERMISSION_BITS: bigint = REQUIRED_PERMISSIONS.reduce((a, p) => a | p.bit, 0n);

export function inviteUrl(applicationId: string): string {
  const q = new URLSearchParams({ client_id: applicationId, scope: 'bot applications.commands', permissions: REQUIRED_PERMISSION_BITS.toString() });
  return `https://discord.com/oauth2/authorize?${q.toString()}`;
}

/** The required permissions a permission bitfield lacks, by the label Discord's settings show. */
export function missingPermissions(granted: bigint): string[] {
  if ((granted & PermissionFlagsBits.Administrator) !== 0n) return [];
  return REQUIRED_PERMISSIONS.filter((p) => (granted & p.bit) === 0n).map((p) => p.label);
}
