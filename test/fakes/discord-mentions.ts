/**
 * Who a message mentions and who it would ping, the way Discord decides: `<@id>`, `<@!id>`, `<@&role>`,
 * `@everyone` and `@here` in the content (outside code spans and fences) filtered by `allowed_mentions`
 * (absent = parse everything and ping the replied-to author), role mentionability and the author's
 * MENTION_EVERYONE permission; SUPPRESS_NOTIFICATIONS keeps the mentions but notifies nobody.
 */
import { FormErrors } from './discord-errors';
import type { PingReport } from './discord-store';
import { MessageFlag, type DcAllowedMentions, type DcRole } from './discord-types';

export interface MentionInput {
  content: string;
  allowedMentions?: DcAllowedMentions;
  authorId: string;
  /** Author of the message this one replies to, if any. */
  repliedAuthorId?: string;
  canMentionEveryone: boolean;
  roles: Map<string, DcRole>;
  knownUser: (id: string) => boolean;
  flags: number;
}

export interface MentionResult {
  mentions: { users: string[]; roles: string[]; everyone: boolean };
  pings: PingReport;
}

/** Rejects allowed_mentions Discord would refuse (50035). */
export function validateAllowedMentions(am: unknown, errors: FormErrors, path = 'allowed_mentions'): void {
  if (am === undefined || am === null) return;
  if (typeof am !== 'object' || Array.isArray(am)) {
    errors.add(path, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType');
    return;
  }
  const a = am as DcAllowedMentions;
  for (const p of a.parse ?? []) {
    if (!['users', 'roles', 'everyone'].includes(p)) errors.add(`${path}.parse`, 'ENUM_TYPE_COERCE', `Value "${String(p)}" is not a valid enum value.`);
  }
  for (const kind of ['users', 'roles'] as const) {
    const list = a[kind];
    if (list === undefined) continue;
    if (list.length > 100) errors.maxLength(`${path}.${kind}`, 100);
    if (a.parse?.includes(kind) && list.length > 0) {
      errors.add(path, 'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE', `parse:["${kind}"] and ${kind}: [ids] are mutually exclusive.`);
    }
  }
}

/** Content with code fences and inline code spans removed (mentions there are not parsed). */
export function stripCode(content: string): string {
  return content.replace(/```[\s\S]*?```/g, ' ').replace(/`[^`\n]*`/g, ' ');
}

export function analyseMentions(i: MentionInput): MentionResult {
  const text = stripCode(i.content);
  const userIds = unique([...text.matchAll(/<@!?(\d{15,21})>/g)].map((m) => m[1])).filter(i.knownUser);
  const roleIds = unique([...text.matchAll(/<@&(\d{15,21})>/g)].map((m) => m[1])).filter((id) => i.roles.has(id));
  const saysEveryone = /(^|[^\w`])@everyone\b/.test(text);
  const saysHere = /(^|[^\w`])@here\b/.test(text);

  const am = i.allowedMentions;
  const parse = am ? (am.parse ?? []) : ['users', 'roles', 'everyone'];
  const users = parse.includes('users') ? userIds : userIds.filter((id) => am?.users?.includes(id));
  const roles = (parse.includes('roles') ? roleIds : roleIds.filter((id) => am?.roles?.includes(id))).filter(
    (id) => i.roles.get(id)!.mentionable || i.canMentionEveryone,
  );
  const everyoneAllowed = parse.includes('everyone') && i.canMentionEveryone;
  const everyone = everyoneAllowed && saysEveryone;
  const here = everyoneAllowed && saysHere;

  const mentionedUsers = [...users];
  let repliedUser: string | undefined;
  const pingReply = am ? am.replied_user === true : true;
  if (i.repliedAuthorId && pingReply && i.repliedAuthorId !== i.authorId) {
    repliedUser = i.repliedAuthorId;
    if (!mentionedUsers.includes(repliedUser)) mentionedUsers.push(repliedUser);
  }
  const silent = (i.flags & MessageFlag.SuppressNotifications) !== 0;
  const pingedUsers = mentionedUsers.filter((id) => id !== i.authorId);
  const pings: PingReport = {
    everyone, here, users: pingedUsers, roles, any: !silent && (everyone || here || pingedUsers.length > 0 || roles.length > 0),
  };
  if (repliedUser) pings.repliedUser = repliedUser;
  return { mentions: { users: mentionedUsers, roles, everyone: everyone || here }, pings };
}

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}
