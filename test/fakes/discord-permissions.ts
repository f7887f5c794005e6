/**
 * Discord permission bits and the standard computation of a member's permissions in a channel:
 * @everyone and role permissions, ADMINISTRATOR short-circuit, then @everyone / role / member
 * overwrites in that order (threads use their parent's overwrites). Losing VIEW_CHANNEL removes all.
 */
import type { DcOverwrite, DcRole } from './discord-types';

export const Perm = {
  CreateInstantInvite: 1n << 0n,
  KickMembers: 1n << 1n,
  BanMembers: 1n << 2n,
  Administrator: 1n << 3n,
  ManageChannels: 1n << 4n,
  ManageGuild: 1n << 5n,
  AddReactions: 1n << 6n,
  ViewAuditLog: 1n << 7n,
  ViewChannel: 1n << 10n,
  SendMessages: 1n << 11n,
  SendTTSMessages: 1n << 12n,
  ManageMessages: 1n << 13n,
  EmbedLinks: 1n << 14n,
  AttachFiles: 1n << 15n,
  ReadMessageHistory: 1n << 16n,
  MentionEveryone: 1n << 17n,
  UseExternalEmojis: 1n << 18n,
  Connect: 1n << 20n,
  Speak: 1n << 21n,
  ChangeNickname: 1n << 26n,
  ManageRoles: 1n << 28n,
  ManageWebhooks: 1n << 29n,
  UseApplicationCommands: 1n << 31n,
  ManageThreads: 1n << 34n,
  CreatePublicThreads: 1n << 35n,
  CreatePrivateThreads: 1n << 36n,
  UseExternalStickers: 1n << 37n,
  SendMessagesInThreads: 1n << 38n,
  SendPolls: 1n << 49n,
} as const;

export type PermissionName = keyof typeof Perm;

export const ALL_PERMISSIONS = (1n << 53n) - 1n;

/** What a new guild's @everyone role may do (Discord's defaults, text-relevant part). */
export const DEFAULT_EVERYONE_PERMISSIONS =
  Perm.CreateInstantInvite |
  Perm.AddReactions |
  Perm.ViewChannel |
  Perm.SendMessages |
  Perm.EmbedLinks |
  Perm.AttachFiles |
  Perm.ReadMessageHistory |
  Perm.MentionEveryone |
  Perm.UseExternalEmojis |
  Perm.Connect |
  Perm.Speak |
  Perm.ChangeNickname |
  Perm.UseApplicationCommands |
  Perm.CreatePublicThreads |
  Perm.CreatePrivateThreads |
  Perm.UseExternalStickers |
  Perm.SendMessagesInThreads |
  Perm.SendPolls;

export function permBits(p: PermissionName[] | bigint | string | undefined): bigint {
  if (p === undefined) return 0n;
  if (typeof p === 'bigint') return p;
  if (typeof p === 'string') return BigInt(p);
  return p.reduce((acc, name) => acc | Perm[name], 0n);
}

export const has = (bits: bigint, p: bigint): boolean => (bits & p) === p;

export interface PermissionInput {
  guildId: string;
  ownerId: string;
  userId: string;
  roles: Map<string, DcRole>;
  memberRoleIds: string[];
  overwrites: DcOverwrite[];
}

export function basePermissions(i: Omit<PermissionInput, 'overwrites'>): bigint {
  if (i.userId === i.ownerId) return ALL_PERMISSIONS;
  let bits = BigInt(i.roles.get(i.guildId)?.permissions ?? '0');
  for (const id of i.memberRoleIds) bits |= BigInt(i.roles.get(id)?.permissions ?? '0');
  return has(bits, Perm.Administrator) ? ALL_PERMISSIONS : bits;
}

export function channelPermissions(i: PermissionInput): bigint {
  let bits = basePermissions(i);
  if (bits === ALL_PERMISSIONS) return bits;
  const everyone = i.overwrites.find((o) => o.type === 0 && o.id === i.guildId);
  if (everyone) bits = (bits & ~BigInt(everyone.deny)) | BigInt(everyone.allow);
  let allow = 0n;
  let deny = 0n;
  for (const o of i.overwrites) {
    if (o.type === 0 && o.id !== i.guildId && i.memberRoleIds.includes(o.id)) {
      allow |= BigInt(o.allow);
      deny |= BigInt(o.deny);
    }
  }
  bits = (bits & ~deny) | allow;
  const member = i.overwrites.find((o) => o.type === 1 && o.id === i.userId);
  if (member) bits = (bits & ~BigInt(member.deny)) | BigInt(member.allow);
  return has(bits, Perm.ViewChannel) ? bits : 0n;
}
