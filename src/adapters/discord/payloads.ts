/**
 * The Discord payloads the adapter reads, validated with zod at the boundary (gateway dispatches and
 * REST answers alike): messages, channels and threads, GUILD_CREATE's channel list and bot role, thread
 * list syncs, interactions (slash commands and button clicks) and the answers of the calls it makes.
 * Unknown fields are dropped; a payload missing what the adapter needs fails to parse and is logged.
 */
import * as z from 'zod';

export const snowflake = z.string().regex(/^\d{1,20}$/);

export const userSchema = z.object({
  id: snowflake,
  username: z.string(),
  global_name: z.string().nullish(),
  bot: z.boolean().optional(),
});
export type UserPayload = z.infer<typeof userSchema>;

const memberSchema = z.object({ roles: z.array(snowflake).default([]), user: userSchema.optional() });

export const attachmentSchema = z.object({
  id: snowflake,
  filename: z.string().min(1),
  size: z.number().int().nonnegative(),
  url: z.url(),
  content_type: z.string().optional(),
});
export type AttachmentPayload = z.infer<typeof attachmentSchema>;

export const channelSchema = z.object({
  id: snowflake,
  type: z.number().int(),
  guild_id: snowflake.optional(),
  parent_id: snowflake.nullish(),
  owner_id: snowflake.optional(),
});
export type ChannelPayload = z.infer<typeof channelSchema>;

export const messageSchema = z.object({
  id: snowflake,
  channel_id: snowflake,
  guild_id: snowflake.optional(),
  author: userSchema,
  member: memberSchema.optional(),
  content: z.string(),
  timestamp: z.string(),
  type: z.number().int(),
  webhook_id: snowflake.optional(),
  mentions: z.array(userSchema).default([]),
  mention_roles: z.array(snowflake).default([]),
  attachments: z.array(attachmentSchema).default([]),
  message_reference: z.object({ message_id: snowflake.optional() }).optional(),
  referenced_message: z.object({ id: snowflake, author: userSchema }).nullish(),
});
export type MessagePayload = z.infer<typeof messageSchema>;

export const guildCreateSchema = z.object({
  id: snowflake,
  channels: z.array(channelSchema).default([]),
  threads: z.array(channelSchema).default([]),
  roles: z.array(z.object({ id: snowflake, tags: z.object({ bot_id: snowflake.optional() }).nullish() })).default([]),
});

export const threadListSyncSchema = z.object({ guild_id: snowflake, threads: z.array(channelSchema).default([]) });
export const deletedSchema = z.object({ id: snowflake });

const optionSchema = z.object({ name: z.string(), type: z.number().int(), value: z.union([z.string(), z.number(), z.boolean()]).optional() });

export const interactionSchema = z.object({
  id: snowflake,
  application_id: snowflake,
  type: z.number().int(),
  token: z.string().min(1),
  guild_id: snowflake.optional(),
  channel_id: snowflake.optional(),
  channel: channelSchema.optional(),
  member: memberSchema.extend({ user: userSchema }).optional(),
  user: userSchema.optional(),
  data: z
    .object({
      name: z.string().optional(),
      custom_id: z.string().optional(),
      component_type: z.number().int().optional(),
      options: z.array(optionSchema).optional(),
    })
    .optional(),
  message: z.object({ id: snowflake, channel_id: snowflake, flags: z.number().int().optional(), thread: channelSchema.optional() }).optional(),
  attachment_size_limit: z.number().int().positive().optional(),
});
export type InteractionPayload = z.infer<typeof interactionSchema>;

/** `POST /interactions/{id}/{token}/callback?with_response=true`. */
export const callbackResponseSchema = z.object({
  interaction: z.object({ id: snowflake, response_message_id: snowflake.optional() }),
  resource: z.object({ type: z.number().int(), message: z.object({ id: snowflake }).optional() }).optional(),
});

export const createdMessageSchema = z.object({ id: snowflake, channel_id: snowflake });

/** An application command as Discord lists it (only the fields the adapter registers). */
export const registeredCommandSchema = z.object({
  name: z.string(),
  type: z.number().int().optional(),
  description: z.string().default(''),
  options: z.array(z.record(z.string(), z.unknown())).nullish(),
  contexts: z.array(z.number().int()).nullish(),
  integration_types: z.array(z.number().int()).nullish(),
  default_member_permissions: z.string().nullish(),
  nsfw: z.boolean().nullish(),
});
export type RegisteredCommand = z.infer<typeof registeredCommandSchema>;

/** Parses, or says briefly what is wrong (the caller logs what was unreadable). */
export function parseOr<T>(schema: z.ZodType<T>, value: unknown): { ok: true; value: T } | { ok: false; error: string } {
  const r = schema.safeParse(value);
  return r.success ? { ok: true, value: r.data } : { ok: false, error: r.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') };
}

/** Milliseconds since the epoch at which a snowflake was made. */
export function snowflakeTime(id: string): number {
  return Number((BigInt(id) >> 22n) + 1_420_070_400_000n);
}
