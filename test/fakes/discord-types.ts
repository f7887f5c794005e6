/**
 * Wire shapes and constants of the fake Discord platform (API v10): the subset of channel, message,
 * component, interaction, intent, permission and flag values the fake reads or writes. Kept local
 * (not imported from discord.js) so the fake checks the SDK rather than agreeing with it by construction.
 */

/** The fakes' shared time source, re-exported so platform code imports its types from one place. */
export { realClock, type FakeClock } from './server-clock';

export type Snowflake = string;

export const ChannelType = {
  GuildText: 0,
  DM: 1,
  GuildVoice: 2,
  GroupDM: 3,
  GuildCategory: 4,
  GuildAnnouncement: 5,
  AnnouncementThread: 10,
  PublicThread: 11,
  PrivateThread: 12,
  GuildForum: 15,
} as const;

export const isThreadType = (t: number): boolean => t === 10 || t === 11 || t === 12;
/** Channel types a message can be posted into. */
export const isTextType = (t: number): boolean => t === 0 || t === 1 || t === 3 || t === 5 || isThreadType(t);

export const Intent = {
  Guilds: 1 << 0,
  GuildMembers: 1 << 1,
  GuildModeration: 1 << 2,
  GuildExpressions: 1 << 3,
  GuildIntegrations: 1 << 4,
  GuildWebhooks: 1 << 5,
  GuildInvites: 1 << 6,
  GuildVoiceStates: 1 << 7,
  GuildPresences: 1 << 8,
  GuildMessages: 1 << 9,
  GuildMessageReactions: 1 << 10,
  GuildMessageTyping: 1 << 11,
  DirectMessages: 1 << 12,
  DirectMessageReactions: 1 << 13,
  DirectMessageTyping: 1 << 14,
  MessageContent: 1 << 15,
  GuildScheduledEvents: 1 << 16,
  AutoModerationConfiguration: 1 << 20,
  AutoModerationExecution: 1 << 21,
  GuildMessagePolls: 1 << 24,
  DirectMessagePolls: 1 << 25,
} as const;

export const ALL_INTENTS = Object.values(Intent).reduce((a, b) => a | b, 0);
export const PRIVILEGED_INTENTS = Intent.GuildMembers | Intent.GuildPresences | Intent.MessageContent;

/** Application flags that say which privileged intents the app has switched on. */
export const ApplicationFlag = {
  GatewayPresence: 1 << 12,
  GatewayPresenceLimited: 1 << 13,
  GatewayGuildMembers: 1 << 14,
  GatewayGuildMembersLimited: 1 << 15,
  GatewayMessageContent: 1 << 18,
  GatewayMessageContentLimited: 1 << 19,
  ApplicationCommandBadge: 1 << 23,
} as const;

export const MessageFlag = {
  Crossposted: 1 << 0,
  SuppressEmbeds: 1 << 2,
  HasThread: 1 << 5,
  Ephemeral: 1 << 6,
  Loading: 1 << 7,
  SuppressNotifications: 1 << 12,
  IsVoiceMessage: 1 << 13,
  IsComponentsV2: 1 << 15,
} as const;

export const MessageType = { Default: 0, ThreadCreated: 18, Reply: 19, ChatInputCommand: 20, ThreadStarterMessage: 21 } as const;

export const InteractionType = { Ping: 1, ApplicationCommand: 2, MessageComponent: 3, Autocomplete: 4, ModalSubmit: 5 } as const;

export const CallbackType = {
  Pong: 1,
  ChannelMessageWithSource: 4,
  DeferredChannelMessageWithSource: 5,
  DeferredUpdateMessage: 6,
  UpdateMessage: 7,
  AutocompleteResult: 8,
  Modal: 9,
} as const;

export const ComponentType = {
  ActionRow: 1,
  Button: 2,
  StringSelect: 3,
  TextInput: 4,
  UserSelect: 5,
  RoleSelect: 6,
  MentionableSelect: 7,
  ChannelSelect: 8,
  Section: 9,
  TextDisplay: 10,
  Thumbnail: 11,
  MediaGallery: 12,
  File: 13,
  Separator: 14,
  Container: 17,
} as const;

export const ButtonStyle = { Primary: 1, Secondary: 2, Success: 3, Danger: 4, Link: 5, Premium: 6 } as const;

export const OptionType = {
  SubCommand: 1,
  SubCommandGroup: 2,
  String: 3,
  Integer: 4,
  Boolean: 5,
  User: 6,
  Channel: 7,
  Role: 8,
  Mentionable: 9,
  Number: 10,
  Attachment: 11,
} as const;

export const Opcode = {
  Dispatch: 0,
  Heartbeat: 1,
  Identify: 2,
  PresenceUpdate: 3,
  VoiceStateUpdate: 4,
  Resume: 6,
  Reconnect: 7,
  RequestGuildMembers: 8,
  InvalidSession: 9,
  Hello: 10,
  HeartbeatAck: 11,
  RequestSoundboardSounds: 31,
} as const;

export interface DcUser {
  id: Snowflake;
  username: string;
  discriminator: string;
  global_name: string | null;
  avatar: string | null;
  bot?: boolean;
  public_flags: number;
}

export interface DcRole {
  id: Snowflake;
  name: string;
  color: number;
  hoist: boolean;
  icon: null;
  unicode_emoji: null;
  position: number;
  permissions: string;
  managed: boolean;
  mentionable: boolean;
  flags: number;
  tags?: { bot_id?: Snowflake };
}

export interface DcOverwrite {
  id: Snowflake;
  /** 0 = role, 1 = member. */
  type: 0 | 1;
  allow: string;
  deny: string;
}

export interface DcEmbed {
  title?: string;
  description?: string;
  url?: string;
  color?: number;
  fields?: Array<{ name: string; value: string; inline?: boolean }>;
  footer?: { text: string };
  author?: { name: string };
  [k: string]: unknown;
}

/** A component as sent by the app (action row, button, select, v2 layout). */
export interface DcComponent {
  type: number;
  id?: number;
  components?: DcComponent[];
  custom_id?: string;
  label?: string;
  style?: number;
  url?: string;
  disabled?: boolean;
  emoji?: unknown;
  content?: string;
  accessory?: DcComponent;
  [k: string]: unknown;
}

export interface DcAllowedMentions {
  parse?: Array<'users' | 'roles' | 'everyone'>;
  users?: Snowflake[];
  roles?: Snowflake[];
  replied_user?: boolean;
}

export interface DcAttachment {
  id: Snowflake;
  filename: string;
  size: number;
  url: string;
  proxy_url: string;
  content_type?: string;
  description?: string;
}

/** An application command as registered (what GET returns). */
export interface DcCommand {
  id: Snowflake;
  application_id: Snowflake;
  guild_id?: Snowflake;
  version: Snowflake;
  type: number;
  name: string;
  description: string;
  options?: Array<{ type: number; name: string; description: string; required?: boolean; [k: string]: unknown }>;
  default_member_permissions: string | null;
  dm_permission?: boolean;
  contexts?: number[] | null;
  integration_types?: number[];
  nsfw: boolean;
  [k: string]: unknown;
}

export type Json = Record<string, unknown>;
