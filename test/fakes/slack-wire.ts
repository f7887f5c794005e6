/**
 * Renders the fake's stored state as Slack's JSON: message objects (bot messages with `bot_id`,
 * `app_id`, `bot_profile`; user messages with `rich_text` blocks; thread parents with reply counts),
 * file objects with `url_private`, user objects for users.info, and conversation objects for
 * conversations.info (the `is_im` / `is_channel` / `is_private` family of flags).
 */
import type { SlackStore } from './slack-store';
import type { Block, SlackUser, StoredChannel, StoredFile, StoredMessage, WireFile } from './slack-types';

export function fileWire(store: SlackStore, f: StoredFile): WireFile {
  const url = store.fileUrl(f);
  const w: WireFile = {
    id: f.id, created: f.created, timestamp: f.created, name: f.name, title: f.title, mimetype: f.mimetype, filetype: f.filetype,
    pretty_type: f.filetype.toUpperCase(), user: f.user, user_team: store.team.id, editable: false, size: f.size, mode: 'hosted',
    is_external: false, external_type: '', is_public: f.channels.some((c) => store.channels.get(c)?.kind === 'public'), public_url_shared: false,
    url_private: url, url_private_download: url.replace('/files-pri/', '/files-pri/download/'),
    permalink: `${store.baseUrl}/files/${f.user}/${f.id}/${encodeURIComponent(f.name)}`,
  };
  if (f.alt_text) w.alt_txt = f.alt_text;
  return w;
}

/** `rich_text` blocks as a Slack client attaches them to a typed message (mentions become user elements). */
export function richTextBlocks(text: string, blockId: string): Block[] {
  const elements: Array<Record<string, unknown>> = [];
  const re = /<@([UW][A-Z0-9]+)(?:\|[^>]*)?>|<#(C[A-Z0-9]+)(?:\|[^>]*)?>|<(https?:\/\/[^|>]+)(?:\|([^>]*))?>/g;
  let last = 0;
  for (const m of text.matchAll(re)) {
    const at = m.index ?? 0;
    if (at > last) elements.push({ type: 'text', text: text.slice(last, at) });
    if (m[1]) elements.push({ type: 'user', user_id: m[1] });
    else if (m[2]) elements.push({ type: 'channel', channel_id: m[2] });
    else elements.push(m[4] ? { type: 'link', url: m[3], text: m[4] } : { type: 'link', url: m[3] });
    last = at + m[0].length;
  }
  if (last < text.length) elements.push({ type: 'text', text: text.slice(last) });
  return [{ type: 'rich_text', block_id: blockId, elements: [{ type: 'rich_text_section', elements }] }];
}

export function botProfile(store: SlackStore): Record<string, unknown> {
  return {
    id: store.bot.botId, app_id: store.bot.appId, name: store.bot.name, icons: { image_48: `${store.baseUrl}/img/bot_48.png` }, deleted: false,
    updated: 1_700_000_000, team_id: store.team.id,
  };
}

export function messageWire(store: SlackStore, msg: StoredMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { type: 'message' };
  if (msg.subtype) out.subtype = msg.subtype;
  if (msg.user) out.user = msg.user;
  if (msg.bot_id) out.bot_id = msg.bot_id;
  if (msg.app_id) out.app_id = msg.app_id;
  if (msg.username) out.username = msg.username;
  out.text = msg.markdown ?? msg.text;
  out.ts = msg.ts;
  out.team = store.team.id;
  if (msg.fromBot && msg.bot_id === store.bot.botId) out.bot_profile = botProfile(store);
  if (msg.blocks) out.blocks = structuredClone(msg.blocks);
  if (msg.files.length) {
    out.files = msg.files.map((id) => store.files.get(id)).filter((f): f is StoredFile => !!f).map((f) => fileWire(store, f));
    out.upload = false;
    out.display_as_bot = false;
  }
  if (msg.edited) out.edited = { ...msg.edited };
  if (msg.metadata !== undefined) out.metadata = structuredClone(msg.metadata);
  if (msg.reactions.length) out.reactions = msg.reactions.map((r) => ({ name: r.name, users: [...r.users], count: r.count }));
  const ch = store.channels.get(msg.channel);
  if (msg.thread_ts !== undefined) {
    out.thread_ts = msg.thread_ts;
    const parent = ch?.messages.get(msg.thread_ts);
    const parentUser = parent?.user ?? parent?.bot_id;
    if (parentUser) out.parent_user_id = parentUser;
    if (msg.reply_broadcast) out.subtype = 'thread_broadcast';
  } else if (ch) {
    const replies = store.replies(ch, msg.ts);
    if (replies.length) {
      const users = [...new Set(replies.map((r) => r.user ?? r.bot_id ?? ''))].filter(Boolean);
      Object.assign(out, { thread_ts: msg.ts, reply_count: replies.length, reply_users_count: users.length, latest_reply: replies[replies.length - 1].ts, reply_users: users, is_locked: false, subscribed: false });
    }
  }
  return out;
}

export function userWire(store: SlackStore, u: SlackUser): Record<string, unknown> {
  const profile: Record<string, unknown> = {
    real_name: u.real_name, display_name: u.display_name, real_name_normalized: u.real_name, display_name_normalized: u.display_name,
    first_name: u.real_name.split(' ')[0], last_name: u.real_name.split(' ').slice(1).join(' '), team: store.team.id,
    image_48: `${store.baseUrl}/img/${u.id}_48.png`,
  };
  if (u.bot_id) {
    profile.bot_id = u.bot_id;
    profile.api_app_id = store.bot.appId;
  }
  return {
    id: u.id, team_id: u.team_id, name: u.name, deleted: u.deleted, real_name: u.real_name, tz: u.tz, tz_label: u.tz, tz_offset: 0, profile,
    is_admin: false, is_owner: false, is_bot: u.is_bot, is_app_user: false, updated: 1_700_000_000, is_email_confirmed: !u.is_bot,
  };
}

export function conversationWire(store: SlackStore, ch: StoredChannel): Record<string, unknown> {
  const base: Record<string, unknown> = { id: ch.id, created: ch.created, is_archived: ch.archived, is_org_shared: false, context_team_id: store.team.id };
  if (ch.kind === 'im') {
    return { ...base, is_im: true, user: ch.user, is_user_deleted: store.users.get(ch.user ?? '')?.deleted ?? false, priority: 0, is_open: true };
  }
  const mpim = ch.kind === 'mpim';
  return {
    ...base, name: ch.name, name_normalized: ch.name, is_channel: ch.kind === 'public', is_group: ch.kind === 'private', is_im: false, is_mpim: mpim,
    is_private: ch.kind !== 'public', is_general: ch.name === 'general', is_shared: false, is_ext_shared: false, is_pending_ext_shared: false,
    is_member: ch.botMember, creator: [...ch.members][0] ?? '', unlinked: 0, topic: { value: '', creator: '', last_set: 0 },
    purpose: { value: '', creator: '', last_set: 0 }, num_members: ch.members.size + (ch.botMember ? 1 : 0),
  };
}
