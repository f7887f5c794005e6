/**
 * The fake Slack world: one workspace with its bot, users, conversations (public / private channels,
 * IMs whose ids start with D, MPIMs), bot membership, per-channel message histories with threads,
 * ephemeral messages, reactions, files and assistant-thread state. Message `ts` values are strictly
 * increasing across the workspace ("1700000000.000100" style, from the clock), so a ts names one
 * message. Lookups are Map accesses; thread replies are indexed per thread.
 */
import type {
  AssistantThreadState, Block, ChannelKind, EphemeralMessage, FakeClock, SlackUser, StoredChannel, StoredFile, StoredMessage,
} from './slack-types';

export interface WorkspaceInput {
  teamId?: string;
  teamName?: string;
  domain?: string;
  botUserId?: string;
  botId?: string;
  appId?: string;
  botName?: string;
}

export type UserInput = string | (Partial<Omit<SlackUser, 'id' | 'team_id'>> & { id: string });

export interface ChannelInput {
  id?: string;
  name?: string;
  kind?: ChannelKind;
  /** User ids in the conversation (the bot is tracked by `botMember`). */
  members?: string[];
  botMember?: boolean;
  archived?: boolean;
  /** IMs: the user on the other side. */
  user?: string;
}

const ID_PREFIX: Record<ChannelKind, string> = { public: 'C', private: 'C', im: 'D', mpim: 'G' };

export class SlackStore {
  readonly team: { id: string; name: string; domain: string };
  readonly bot: { userId: string; botId: string; appId: string; name: string };
  readonly users = new Map<string, SlackUser>();
  readonly channels = new Map<string, StoredChannel>();
  readonly files = new Map<string, StoredFile>();
  readonly assistantThreads = new Map<string, AssistantThreadState>();
  readonly ephemeral: EphemeralMessage[] = [];
  /** Root URL of the running server (for url_private, permalinks); set by the server at start. */
  baseUrl = 'http://127.0.0.1:0';
  private byName = new Map<string, StoredChannel>();
  private imByUser = new Map<string, StoredChannel>();
  private tsIndex = new Map<string, string>();
  private threads = new Map<string, string[]>();
  private lastMicros = 0;
  private seq = 0;

  constructor(ws: WorkspaceInput, private readonly clock: FakeClock) {
    this.team = { id: ws.teamId ?? 'T0000FAKE1', name: ws.teamName ?? 'Fake Workspace', domain: ws.domain ?? 'fake-workspace' };
    this.bot = { userId: ws.botUserId ?? 'U0000FAKEB', botId: ws.botId ?? 'B0000FAKEB', appId: ws.appId ?? 'A0000FAKEA', name: ws.botName ?? 'penguin' };
    this.users.set(this.bot.userId, {
      id: this.bot.userId, team_id: this.team.id, name: this.bot.name, real_name: this.bot.name, display_name: '', is_bot: true,
      deleted: false, tz: 'America/Los_Angeles', bot_id: this.bot.botId,
    });
  }

  /** A fresh message ts, strictly greater than every earlier one. */
  nextTs(): string {
    const micros = Math.max(Math.floor(this.clock.now() * 1000), this.lastMicros + 1);
    this.lastMicros = micros;
    return `${Math.floor(micros / 1e6)}.${String(micros % 1e6).padStart(6, '0')}`;
  }

  /** A new Slack-looking id ("F0000000A1"). */
  newId(prefix: string): string {
    return `${prefix}${(++this.seq).toString(36).toUpperCase().padStart(9, '0')}`;
  }

  nowSeconds(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  user(input: UserInput): SlackUser {
    const fields = typeof input === 'string' ? { id: input } : input;
    const known = this.users.get(fields.id);
    const name = fields.name ?? known?.name ?? fields.id.toLowerCase();
    const merged: SlackUser = {
      team_id: this.team.id, name, real_name: name.charAt(0).toUpperCase() + name.slice(1), display_name: name, is_bot: false, deleted: false,
      tz: 'Europe/London', ...known, ...fields,
    } as SlackUser;
    this.users.set(merged.id, merged);
    return merged;
  }

  /** The conversation with this id or name, created (or updated with the given fields) as needed. */
  channel(input: ChannelInput): StoredChannel {
    let ch = input.id ? this.channels.get(input.id) : input.name ? this.byName.get(input.name) : undefined;
    if (!ch) {
      const kind = input.kind ?? (input.id?.startsWith('D') ? 'im' : 'public');
      const id = input.id ?? this.newId(ID_PREFIX[kind]);
      ch = {
        id, name: input.name ?? (kind === 'im' ? id : `channel-${id.toLowerCase()}`), kind, members: new Set(), botMember: kind === 'im',
        archived: false, created: this.nowSeconds(), messages: new Map(), order: [], deletedCount: 0, rateLimited: 0,
      };
      this.channels.set(id, ch);
    }
    if (input.name !== undefined && ch.kind !== 'im') ch.name = input.name;
    if (input.botMember !== undefined) ch.botMember = input.botMember;
    if (input.archived !== undefined) ch.archived = input.archived;
    for (const m of input.members ?? []) {
      this.user(m);
      ch.members.add(m);
    }
    if (input.user !== undefined) {
      ch.user = input.user;
      ch.members.add(input.user);
      this.user(input.user);
      this.imByUser.set(input.user, ch);
    }
    if (ch.kind !== 'im') this.byName.set(ch.name, ch);
    return ch;
  }

  /** The bot's IM with a user (created on first use). */
  im(userId: string): StoredChannel {
    return this.imByUser.get(userId) ?? this.channel({ kind: 'im', id: this.newId('D'), user: userId });
  }

  /** A conversation by id, by name ("general" / "#general"), or a user id standing for the bot's IM with them. */
  resolveChannel(ref: string): StoredChannel | undefined {
    const direct = this.channels.get(ref);
    if (direct) return direct;
    if (/^[UW]/.test(ref) && this.users.has(ref) && ref !== this.bot.userId) return this.im(ref);
    return this.byName.get(ref.replace(/^#/, ''));
  }

  addMessage(ch: StoredChannel, fields: Omit<StoredMessage, 'ts' | 'channel' | 'editCount' | 'reactions' | 'postedAt' | 'changedAt' | 'files'> & { files?: string[] }): StoredMessage {
    const now = this.clock.now();
    const msg: StoredMessage = { ...fields, files: fields.files ?? [], ts: this.nextTs(), channel: ch.id, editCount: 0, reactions: [], postedAt: now, changedAt: now };
    if (msg.blocks) msg.blocks = this.withBlockIds(msg.blocks);
    if (msg.thread_ts !== undefined) {
      msg.thread_ts = this.threadRoot(ch, msg.thread_ts);
      const key = `${ch.id}:${msg.thread_ts}`;
      const list = this.threads.get(key);
      if (list) list.push(msg.ts);
      else this.threads.set(key, [msg.ts]);
    }
    ch.messages.set(msg.ts, msg);
    ch.order.push(msg.ts);
    this.tsIndex.set(msg.ts, ch.id);
    return msg;
  }

  /** Slack fills in a block_id for blocks posted without one. */
  withBlockIds(blocks: Block[]): Block[] {
    return blocks.map((b) => (b.block_id === undefined ? { ...b, block_id: this.shortId() } : b));
  }

  /** A short opaque id like the ones Slack gives blocks ("aB3xQ"). */
  shortId(): string {
    const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    let n = ++this.seq * 7_919 + 104_729;
    let out = '';
    for (let i = 0; i < 5; i++) {
      out += abc[n % abc.length];
      n = Math.floor(n / abc.length) + i * 31;
    }
    return out;
  }

  /** Replying to a reply files the message under the reply's parent, as Slack does. */
  threadRoot(ch: StoredChannel, ts: string): string {
    const target = ch.messages.get(ts);
    return target?.thread_ts ?? ts;
  }

  message(ch: StoredChannel, ts: string): StoredMessage | undefined {
    return ch.messages.get(ts);
  }

  /** The message with this ts in any conversation. */
  findByTs(ts: string): StoredMessage | undefined {
    const id = this.tsIndex.get(ts);
    return id ? this.channels.get(id)?.messages.get(ts) : undefined;
  }

  deleteMessage(ch: StoredChannel, ts: string): void {
    const msg = ch.messages.get(ts);
    if (!msg) return;
    ch.messages.delete(ts);
    ch.order.splice(ch.order.indexOf(ts), 1);
    ch.deletedCount++;
    this.tsIndex.delete(ts);
    if (msg.thread_ts !== undefined) {
      const list = this.threads.get(`${ch.id}:${msg.thread_ts}`);
      if (list) list.splice(list.indexOf(ts), 1);
    }
  }

  /** Replies in a thread (parent excluded), oldest first. */
  replies(ch: StoredChannel, threadTs: string): StoredMessage[] {
    return (this.threads.get(`${ch.id}:${threadTs}`) ?? []).filter((ts) => ts !== threadTs).map((ts) => ch.messages.get(ts)!).filter(Boolean);
  }

  assistantThread(channel: string, threadTs: string): AssistantThreadState {
    const key = `${channel}:${threadTs}`;
    let t = this.assistantThreads.get(key);
    if (!t) {
      t = { channel, thread_ts: threadTs, statusHistory: [] };
      this.assistantThreads.set(key, t);
    }
    return t;
  }

  newFile(fields: Pick<StoredFile, 'name' | 'user'> & Partial<StoredFile>): StoredFile {
    const name = fields.name;
    const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : 'text';
    const f: StoredFile = {
      id: this.newId('F'), title: name, mimetype: mimeOf(ext), filetype: ext, size: 0, created: this.nowSeconds(), uploaded: false, completed: false,
      channels: [], ...fields,
    };
    this.files.set(f.id, f);
    return f;
  }

  fileUrl(f: StoredFile): string {
    return `${this.baseUrl}/files-pri/${this.team.id}-${f.id}/${encodeURIComponent(f.name)}`;
  }
}

const MIME: Record<string, string> = {
  txt: 'text/plain', text: 'text/plain', md: 'text/markdown', json: 'application/json', csv: 'text/csv', png: 'image/png', jpg: 'image/jpeg',
  jpeg: 'image/jpeg', gif: 'image/gif', pdf: 'application/pdf', zip: 'application/zip', html: 'text/html', ts: 'text/plain', js: 'text/javascript',
  diff: 'text/x-diff', patch: 'text/x-diff', log: 'text/plain',
};

export function mimeOf(ext: string): string {
  return MIME[ext] ?? 'application/octet-stream';
}
