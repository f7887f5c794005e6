/**
 * Channel REST routes of the fake Discord API: get/modify channel, list/get/create/edit/delete
 * messages, typing, the bot's reactions, threads from a message (thread id = message id) or on their
 * own (forum posts included), joining threads, and opening DMs. Each checks what Discord checks: the
 * channel exists (10003), the bot can see it (50001) and holds the permission (50013), archived
 * threads (50083, or unarchive on send), DMs to users who closed them (50007), payload limits (50035).
 */
import { dcErrors, FormErrors } from './discord-errors';
import { Perm, has } from './discord-permissions';
import { route, type RouteDef, type RouteResult } from './discord-router';
import type { StoredChannel, StoredMessage } from './discord-store';
import { ChannelType, Intent, MessageFlag, MessageType, isTextType, type Json } from './discord-types';
import { validateMessagePayload } from './discord-validate';
import { channelJson } from './discord-wire';
import { emitChannelEvent, requireChannel, requirePerm, requireUnarchived, requireView, type RestWorld } from './discord-world';

const ARCHIVE_DURATIONS = [60, 1440, 4320, 10080];
const THREAD_PARENTS = new Set<number>([ChannelType.GuildText, ChannelType.GuildAnnouncement, ChannelType.GuildForum]);

export function channelRoutes(w: RestWorld): RouteDef[] {
  const bot = (): string => w.store.bot.id;
  const ok = (body: unknown, status = 200): RouteResult => ({ status, body });
  const msgOf = (ch: StoredChannel, id: string): StoredMessage => {
    const m = ch.messages.get(id);
    if (!m || m.deleted || m.ephemeralTo) throw dcErrors.unknownMessage();
    return m;
  };
  const sendPerm = (ch: StoredChannel): bigint => (ch.thread ? Perm.SendMessagesInThreads : Perm.SendMessages);

  /** Sending into an archived thread reopens it unless it is locked. */
  const reopenForSend = (ch: StoredChannel, bits: bigint): void => {
    if (!ch.thread?.archived) return;
    if (ch.thread.locked && !has(bits, Perm.ManageThreads)) throw dcErrors.threadArchived();
    ch.thread.archived = false;
    ch.thread.archiveTimestamp = w.store.iso();
    emitChannelEvent(w, 'THREAD_UPDATE', ch);
  };

  const threadName = (body: Json, errors: FormErrors): string => {
    const name = body.name;
    if (typeof name !== 'string' || name.length < 1 || name.length > 100) errors.badLength('name', 1, 100);
    const d = body.auto_archive_duration;
    if (d !== undefined && d !== null && !ARCHIVE_DURATIONS.includes(Number(d))) {
      errors.add('auto_archive_duration', 'BASE_TYPE_CHOICES', `Value must be one of {${ARCHIVE_DURATIONS.join(', ')}}.`);
    }
    return String(name ?? '');
  };

  const openThread = (parent: StoredChannel, body: Json, fromMessage?: StoredMessage): StoredChannel => {
    const thread = w.store.addThread(parent, {
      id: fromMessage?.id, name: String(body.name), ownerId: bot(),
      type: fromMessage || parent.type === ChannelType.GuildForum
        ? (parent.type === ChannelType.GuildAnnouncement ? ChannelType.AnnouncementThread : ChannelType.PublicThread)
        : Number(body.type ?? ChannelType.PrivateThread),
      autoArchiveDuration: body.auto_archive_duration === undefined || body.auto_archive_duration === null ? undefined : Number(body.auto_archive_duration),
      invitable: body.type === ChannelType.PrivateThread ? body.invitable !== false : undefined,
    });
    thread.thread!.memberIds.add(bot());
    emitChannelEvent(w, 'THREAD_CREATE', thread, { newly_created: true });
    return thread;
  };

  return [
    route('GET', '/channels/:channel', 'getChannel', {}, ({ params }) => {
      const ch = requireChannel(w, params.channel);
      requireView(w, ch);
      return ok(channelJson(w.store, ch));
    }),

    route('PATCH', '/channels/:channel', 'modifyChannel', {}, ({ params, body }) => {
      const ch = requireChannel(w, params.channel);
      const bits = requireView(w, ch);
      if (ch.thread) {
        const t = ch.thread;
        if (t.ownerId !== bot()) requirePerm(bits, Perm.ManageThreads);
        if (body.locked !== undefined) requirePerm(bits, Perm.ManageThreads);
        if (t.archived && body.archived !== false) throw dcErrors.threadArchived();
        if (typeof body.name === 'string') ch.name = body.name;
        if (body.locked !== undefined) t.locked = body.locked === true;
        if (body.auto_archive_duration !== undefined) t.autoArchiveDuration = Number(body.auto_archive_duration);
        if (body.archived !== undefined && t.archived !== (body.archived === true)) {
          t.archived = body.archived === true;
          t.archiveTimestamp = w.store.iso();
        }
        emitChannelEvent(w, 'THREAD_UPDATE', ch);
      } else {
        requirePerm(bits, Perm.ManageChannels);
        if (typeof body.name === 'string') ch.name = body.name;
        if (body.topic !== undefined) ch.topic = (body.topic as string | null) ?? null;
        emitChannelEvent(w, 'CHANNEL_UPDATE', ch);
      }
      w.changed();
      return ok(channelJson(w.store, ch));
    }),

    route('GET', '/channels/:channel/messages', 'listMessages', {}, ({ params, query }) => {
      const ch = requireChannel(w, params.channel);
      const bits = requireView(w, ch);
      if (!has(bits, Perm.ReadMessageHistory)) return ok([]);
      const limit = Math.min(100, Math.max(1, Number(query.get('limit') ?? 50)));
      const before = query.get('before');
      const after = query.get('after');
      let list = [...ch.messages.values()].filter((m) => !m.deleted && !m.ephemeralTo);
      if (before) list = list.filter((m) => BigInt(m.id) < BigInt(before));
      if (after) list = list.filter((m) => BigInt(m.id) > BigInt(after));
      list = after ? list.slice(0, limit) : list.slice(-limit);
      return ok(list.reverse().map((m) => w.messages.render(m, false, 'rest')));
    }),

    route('GET', '/channels/:channel/messages/:message', 'getMessage', {}, ({ params }) => {
      const ch = requireChannel(w, params.channel);
      requirePerm(requireView(w, ch), Perm.ReadMessageHistory);
      return ok(w.messages.render(msgOf(ch, params.message), false, 'rest'));
    }),

    route('POST', '/channels/:channel/messages', 'createMessage', { group: 'createMessage' }, ({ params, body, files }) => {
      const ch = requireChannel(w, params.channel);
      if (ch.type === ChannelType.GuildForum) throw dcErrors.forumPost();
      if (!isTextType(ch.type)) throw dcErrors.nonTextChannel();
      const bits = requireView(w, ch);
      if (ch.type === ChannelType.DM) {
        const other = w.store.users.get(ch.recipientId!);
        if (!other || other.dmsClosed || other.user.bot) throw dcErrors.cannotDmUser();
      } else {
        requirePerm(bits, sendPerm(ch));
        if (files.length) requirePerm(bits, Perm.AttachFiles);
      }
      const payload = validateMessagePayload(body, { mode: 'create', fileCount: files.length });
      if (payload.reference && !has(bits, Perm.ReadMessageHistory)) throw dcErrors.replyNeedsHistory();
      reopenForSend(ch, bits);
      const msg = w.messages.create(ch, payload, files, { userId: bot() });
      return ok(w.messages.render(msg, false, 'rest'));
    }),

    route(
      'PATCH', '/channels/:channel/messages/:message', 'editMessage', { group: 'editMessage', subKey: (p) => p.message },
      ({ params, body, files }) => {
        const ch = requireChannel(w, params.channel);
        requireView(w, ch);
        const msg = msgOf(ch, params.message);
        if (msg.authorId !== bot()) throw dcErrors.notAuthor();
        requireUnarchived(ch);
        const payload = validateMessagePayload(body, { mode: 'edit', existingFlags: msg.flags, fileCount: files.length });
        w.messages.edit(ch, msg, payload, files, true);
        return ok(w.messages.render(msg, false, 'rest'));
      },
    ),

    route('DELETE', '/channels/:channel/messages/:message', 'deleteMessage', { group: 'deleteMessage' }, ({ params }) => {
      const ch = requireChannel(w, params.channel);
      const bits = requireView(w, ch);
      const msg = msgOf(ch, params.message);
      if (msg.authorId !== bot()) requirePerm(bits, Perm.ManageMessages);
      requireUnarchived(ch);
      w.messages.delete(ch, msg);
      return { status: 204 };
    }),

    route('POST', '/channels/:channel/typing', 'triggerTyping', { group: 'typing' }, ({ params }) => {
      const ch = requireChannel(w, params.channel);
      const bits = requireView(w, ch);
      if (ch.type !== ChannelType.DM) requirePerm(bits, sendPerm(ch));
      ch.typing.push({ userId: bot(), at: w.clock.now(), perfAt: performance.now() });
      w.changed();
      return { status: 204 };
    }),

    route('PUT', '/channels/:channel/messages/:message/reactions/:emoji/@me', 'addReaction', { group: 'reaction' }, ({ params }) => {
      const ch = requireChannel(w, params.channel);
      const bits = requireView(w, ch);
      requirePerm(bits, Perm.ReadMessageHistory);
      const msg = msgOf(ch, params.message);
      requireUnarchived(ch);
      const emoji = parseEmoji(params.emoji);
      let r = msg.reactions.find((x) => x.key === emoji.key);
      if (!r) {
        requirePerm(bits, Perm.AddReactions);
        if (msg.reactions.length >= 20) throw new FormErrors().add('_', 'MAX_REACTIONS', 'Maximum number of reactions reached (20)').toError();
        r = { key: emoji.key, emoji: { id: emoji.id, name: emoji.name }, userIds: [] };
        msg.reactions.push(r);
      }
      if (!r.userIds.includes(bot())) {
        r.userIds.push(bot());
        reactionEvent(w, 'MESSAGE_REACTION_ADD', ch, msg, emoji);
      }
      w.changed();
      return { status: 204 };
    }),

    route('DELETE', '/channels/:channel/messages/:message/reactions/:emoji/@me', 'deleteOwnReaction', { group: 'reaction' }, ({ params }) => {
      const ch = requireChannel(w, params.channel);
      requireView(w, ch);
      const msg = msgOf(ch, params.message);
      const emoji = parseEmoji(params.emoji);
      const r = msg.reactions.find((x) => x.key === emoji.key);
      if (r?.userIds.includes(bot())) {
        r.userIds = r.userIds.filter((u) => u !== bot());
        if (!r.userIds.length) msg.reactions = msg.reactions.filter((x) => x !== r);
        reactionEvent(w, 'MESSAGE_REACTION_REMOVE', ch, msg, emoji);
      }
      w.changed();
      return { status: 204 };
    }),

    route('POST', '/channels/:channel/messages/:message/threads', 'startThreadFromMessage', { group: 'thread' }, ({ params, body }) => {
      const ch = requireChannel(w, params.channel);
      if (ch.type !== ChannelType.GuildText && ch.type !== ChannelType.GuildAnnouncement) throw dcErrors.wrongChannelType();
      const bits = requireView(w, ch);
      const msg = msgOf(ch, params.message);
      const errors = new FormErrors();
      threadName(body, errors);
      errors.throwIfAny();
      if (msg.threadId) throw dcErrors.threadExists();
      requirePerm(bits, Perm.CreatePublicThreads);
      const thread = openThread(ch, body, msg);
      msg.threadId = thread.id;
      msg.flags |= MessageFlag.HasThread;
      w.changed();
      return ok(channelJson(w.store, thread), 201);
    }),

    route('POST', '/channels/:channel/threads', 'startThread', { group: 'thread' }, ({ params, body, files }) => {
      const ch = requireChannel(w, params.channel);
      if (!THREAD_PARENTS.has(ch.type)) throw dcErrors.wrongChannelType();
      const bits = requireView(w, ch);
      const errors = new FormErrors();
      threadName(body, errors);
      const forum = ch.type === ChannelType.GuildForum;
      if (forum && (typeof body.message !== 'object' || body.message === null)) errors.required('message');
      errors.throwIfAny();
      requirePerm(bits, forum ? Perm.SendMessages : body.type === ChannelType.PrivateThread ? Perm.CreatePrivateThreads : Perm.CreatePublicThreads);
      const payload = forum ? validateMessagePayload(body.message as Json, { mode: 'create', fileCount: files.length }) : undefined;
      const thread = openThread(ch, body);
      if (payload) {
        w.messages.create(thread, payload, files, { userId: bot() });
      } else if (thread.type === ChannelType.PublicThread) {
        w.messages.create(ch, { content: thread.name }, [], { userId: bot(), type: MessageType.ThreadCreated });
      }
      w.changed();
      return ok(channelJson(w.store, thread), 201);
    }),

    route('PUT', '/channels/:channel/thread-members/@me', 'joinThread', {}, ({ params }) => {
      const ch = requireChannel(w, params.channel);
      if (!ch.thread) throw dcErrors.wrongChannelType();
      requireView(w, ch);
      requireUnarchived(ch);
      ch.thread.memberIds.add(bot());
      w.changed();
      return { status: 204 };
    }),

    route('DELETE', '/channels/:channel/thread-members/@me', 'leaveThread', {}, ({ params }) => {
      const ch = requireChannel(w, params.channel);
      if (!ch.thread) throw dcErrors.wrongChannelType();
      ch.thread.memberIds.delete(bot());
      w.changed();
      return { status: 204 };
    }),

    route('POST', '/users/@me/channels', 'createDM', {}, ({ body }) => {
      const id = String(body.recipient_id ?? '');
      const user = w.store.users.get(id);
      if (!user || id === bot()) throw dcErrors.invalidRecipient();
      const ch = w.store.dmChannel(id);
      w.changed();
      return ok(channelJson(w.store, ch));
    }),
  ];
}

function parseEmoji(raw: string): { key: string; id: string | null; name: string } {
  const custom = /^(?:a:)?([\w~-]{2,32}):(\d{17,20})$/.exec(raw);
  if (custom) return { key: custom[2], id: custom[2], name: custom[1] };
  if (!raw || /^[\x20-\x7e]+$/.test(raw)) throw dcErrors.unknownEmoji();
  return { key: raw, id: null, name: raw };
}

function reactionEvent(w: RestWorld, t: string, ch: StoredChannel, msg: StoredMessage, emoji: { id: string | null; name: string }): void {
  const d: Json = {
    user_id: w.store.bot.id, channel_id: ch.id, message_id: msg.id, emoji: { id: emoji.id, name: emoji.name }, burst: false, type: 0,
    ...(ch.guildId ? { guild_id: ch.guildId } : {}),
  };
  if (t === 'MESSAGE_REACTION_ADD') d.message_author_id = msg.authorId;
  w.dispatch({ t, guildId: ch.guildId, intent: ch.guildId ? Intent.GuildMessageReactions : Intent.DirectMessageReactions, build: () => d });
}
