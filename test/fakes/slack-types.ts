/**
 * Wire shapes and stored state of the fake Slack platform, kept to the fields the fake fills in. Wire
 * objects (user, conversation, message, file) mirror Slack's JSON field for field so the real SDKs read
 * them as they read the real service; `Stored*` types are the fake's own bookkeeping behind them.
 */

/** The fakes' shared time source, re-exported so platform code imports its types from one place. */
export { realClock, type FakeClock } from './server-clock';

export type ChannelKind = 'public' | 'private' | 'im' | 'mpim';

export type Block = { type: string; block_id?: string; [field: string]: unknown };

/** A native-streaming chunk (`markdown_text`, `task_update`, `plan_update`, `blocks`). */
export type Chunk = { type: string; [field: string]: unknown };

export interface SlackUser {
  id: string;
  team_id: string;
  name: string;
  real_name: string;
  display_name: string;
  is_bot: boolean;
  deleted: boolean;
  tz: string;
  bot_id?: string;
}

export interface Reaction {
  name: string;
  users: string[];
  count: number;
}

export interface StreamState {
  state: 'in_progress' | 'completed';
  appends: number;
  chunks: Chunk[];
  /** task_update chunks by id, latest state of each. */
  tasks: Map<string, Chunk>;
  recipient_user_id?: string;
  recipient_team_id?: string;
  startedAt: number;
  stoppedAt?: number;
}

export interface StoredMessage {
  ts: string;
  channel: string;
  fromBot: boolean;
  /** Posting user id (the bot user for the app's own messages). */
  user?: string;
  bot_id?: string;
  app_id?: string;
  username?: string;
  subtype?: string;
  text: string;
  /** Markdown given as `markdown_text` (shown instead of `text` when present). */
  markdown?: string;
  blocks?: Block[];
  thread_ts?: string;
  reply_broadcast?: boolean;
  mrkdwn?: boolean;
  metadata?: unknown;
  files: string[];
  edited?: { user: string; ts: string };
  editCount: number;
  reactions: Reaction[];
  stream?: StreamState;
  /** Clock ms when posted / last changed, for views and benchmarks. */
  postedAt: number;
  changedAt: number;
  /** Bot messages: was this posted through a response_url rather than the Web API. */
  via?: 'api' | 'response_url';
}

export interface EphemeralMessage {
  channel: string;
  user: string;
  ts: string;
  text: string;
  blocks?: Block[];
  thread_ts?: string;
  at: number;
  via: 'api' | 'response_url';
}

export interface StoredChannel {
  id: string;
  name: string;
  kind: ChannelKind;
  members: Set<string>;
  botMember: boolean;
  archived: boolean;
  created: number;
  /** IMs: the user on the other side. */
  user?: string;
  messages: Map<string, StoredMessage>;
  /** Message ts in posting order (ts are strictly increasing, so this is also ts order). */
  order: string[];
  deletedCount: number;
  rateLimited: number;
}

export interface StoredFile {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  size: number;
  user: string;
  created: number;
  data?: Buffer;
  /** files.getUploadURLExternal: the length the client announced. */
  declaredLength?: number;
  uploaded: boolean;
  completed: boolean;
  uploadToken?: string;
  alt_text?: string;
  channels: string[];
}

export interface AssistantThreadState {
  channel: string;
  thread_ts: string;
  status?: string;
  loading_messages?: string[];
  statusSetAt?: number;
  /** Every setStatus call in order (status "" clears). */
  statusHistory: Array<{ status: string; loading_messages?: string[]; at: number }>;
  title?: string;
  suggestedPrompts?: { title?: string; prompts: Array<{ title: string; message: string }> };
}

/** Wire shape of a file object in messages, events and API answers. */
export interface WireFile {
  id: string;
  created: number;
  timestamp: number;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  pretty_type: string;
  user: string;
  user_team: string;
  editable: boolean;
  size: number;
  mode: 'hosted';
  is_external: false;
  external_type: '';
  is_public: boolean;
  public_url_shared: false;
  url_private: string;
  url_private_download: string;
  permalink: string;
  alt_txt?: string;
}
