/**
 * The REST calls the adapter makes, typed, on @discordjs/rest: messages, typing, reactions, threads from
 * a message, channel lookups, interaction callbacks and the interaction webhook (@original and follow-ups,
 * no bot token), the bot's application and its commands. Answers the adapter reads are validated with
 * zod; failures are thrown as they come (callers classify them once).
 */
import type { REST } from '@discordjs/rest';
import * as z from 'zod';
import { snowflake, callbackResponseSchema, channelSchema, createdMessageSchema, registeredCommandSchema, type ChannelPayload, type RegisteredCommand } from './payloads';

export type Json = Record<string, unknown>;

function parsed<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new Error(`Discord answered ${what} with an unexpected body: ${r.error.issues[0]?.message ?? 'invalid'}`);
  return r.data;
}

const applicationSchema = z.object({ id: snowflake, bot: z.object({ id: snowflake }).optional() });

export class DiscordRest {
  constructor(private readonly client: () => REST) {}

  private get rest(): REST {
    return this.client();
  }

  async createMessage(channel: string, body: Json): Promise<{ id: string }> {
    return parsed(createdMessageSchema, await this.rest.post(`/channels/${channel}/messages`, { body }), 'a new message');
  }

  async editMessage(channel: string, message: string, body: Json): Promise<void> {
    await this.rest.patch(`/channels/${channel}/messages/${message}`, { body });
  }

  async deleteMessage(channel: string, message: string): Promise<void> {
    await this.rest.delete(`/channels/${channel}/messages/${message}`);
  }

  async typing(channel: string): Promise<void> {
    await this.rest.post(`/channels/${channel}/typing`);
  }

  async react(channel: string, message: string, emoji: string): Promise<void> {
    await this.rest.put(`/channels/${channel}/messages/${message}/reactions/${encodeURIComponent(emoji)}/@me`);
  }

  async startThread(channel: string, message: string, name: string): Promise<ChannelPayload> {
    const body = { name, auto_archive_duration: 1440 };
    return parsed(channelSchema, await this.rest.post(`/channels/${channel}/messages/${message}/threads`, { body }), 'a new thread');
  }

  async getChannel(channel: string): Promise<ChannelPayload> {
    return parsed(channelSchema, await this.rest.get(`/channels/${channel}`), 'a channel lookup');
  }

  /** Acknowledges an interaction; with `withResponse`, returns the id of the response message it made. */
  async callback(id: string, token: string, body: Json, withResponse = false): Promise<string | undefined> {
    const query = withResponse ? new URLSearchParams({ with_response: 'true' }) : undefined;
    const answer = await this.rest.post(`/interactions/${id}/${token}/callback`, { body, auth: false, ...(query ? { query } : {}) });
    if (!withResponse) return undefined;
    const r = parsed(callbackResponseSchema, answer, 'an interaction callback');
    return r.interaction.response_message_id ?? r.resource?.message?.id;
  }

  async editOriginal(app: string, token: string, body: Json): Promise<void> {
    await this.rest.patch(`/webhooks/${app}/${token}/messages/@original`, { body, auth: false });
  }

  async deleteOriginal(app: string, token: string): Promise<void> {
    await this.rest.delete(`/webhooks/${app}/${token}/messages/@original`, { auth: false });
  }

  async followUp(app: string, token: string, body: Json): Promise<void> {
    await this.rest.post(`/webhooks/${app}/${token}`, { body, auth: false });
  }

  async listCommands(app: string, guild?: string): Promise<RegisteredCommand[]> {
    const list = await this.rest.get(guild ? `/applications/${app}/guilds/${guild}/commands` : `/applications/${app}/commands`);
    return parsed(registeredCommandSchema.array(), list, 'a command list');
  }

  /** The bot's application (its id names the commands and the interaction webhooks) and bot user. */
  async currentApplication(): Promise<{ id: string; botId?: string }> {
    const app = parsed(applicationSchema, await this.rest.get('/applications/@me'), 'the application lookup');
    return { id: app.id, ...(app.bot ? { botId: app.bot.id } : {}) };
  }

  async putCommands(app: string, commands: Json[], guild?: string): Promise<void> {
    await this.rest.put(guild ? `/applications/${app}/guilds/${guild}/commands` : `/applications/${app}/commands`, { body: commands });
  }
}
