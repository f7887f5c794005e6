/**
 * Bot-level methods of the fake Bot API: getMe, getUpdates, setWebhook / deleteWebhook /
 * getWebhookInfo, answerCallbackQuery (answered once, within the answer window, else "query is too
 * old"), setMyCommands / getMyCommands / deleteMyCommands (per scope + language), and getFile.
 */
import * as z from 'zod';
import { tgErrors } from './telegram-errors';
import { stableJson } from './telegram-markup';
import type { MethodHandler, MethodWorld } from './telegram-method-types';
import { anyJson, bool, int, jsonOf, parseParams, str } from './telegram-params';
import type { TgBotCommand } from './telegram-types';

const getUpdatesSchema = z.object({
  offset: int.optional(),
  limit: int.optional(),
  timeout: int.optional(),
  allowed_updates: jsonOf(z.array(z.string())).optional(),
});
const setWebhookSchema = z.object({
  url: str,
  secret_token: str.optional(),
  max_connections: int.optional(),
  allowed_updates: jsonOf(z.array(z.string())).optional(),
  drop_pending_updates: bool.optional(),
});
const deleteWebhookSchema = z.object({ drop_pending_updates: bool.optional() });
const answerSchema = z.object({
  callback_query_id: str,
  text: str.optional(),
  show_alert: bool.optional(),
  url: str.optional(),
  cache_time: int.optional(),
});
const scopeFields = { scope: anyJson.optional(), language_code: str.optional() };
const setCommandsSchema = z.object({
  commands: jsonOf(z.array(z.object({ command: z.string(), description: z.string() }))),
  ...scopeFields,
});
const scopeSchema = z.object(scopeFields);
const getFileSchema = z.object({ file_id: str });

const commandsKey = (scope: unknown, language: string | undefined): string =>
  `${stableJson(scope ?? { type: 'default' })}|${language ?? ''}`;

export interface BotProfile {
  canJoinGroups: boolean;
  canReadAllGroupMessages: boolean;
  hasTopicsEnabled: boolean;
}

export function botMethods(world: MethodWorld, profile: BotProfile): Record<string, MethodHandler> {
  const { store } = world;
  return {
    getMe: () => ({
      ...store.bot,
      can_join_groups: profile.canJoinGroups,
      can_read_all_group_messages: profile.canReadAllGroupMessages,
      supports_inline_queries: false,
      can_connect_to_business: false,
      has_main_web_app: false,
      has_topics_enabled: profile.hasTopicsEnabled,
      allows_users_to_create_topics: false,
      can_manage_bots: false,
      supports_join_request_queries: false,
    }),

    getUpdates: (params, call) => {
      const p = parseParams(getUpdatesSchema, params);
      return world.getUpdates(
        {
          offset: p.offset,
          limit: Math.min(100, Math.max(1, p.limit ?? 100)),
          timeoutSeconds: Math.max(0, p.timeout ?? 0),
          allowedUpdates: p.allowed_updates,
        },
        call.client,
      );
    },

    setWebhook: (params) => {
      const p = parseParams(setWebhookSchema, params);
      if (p.url === '') {
        world.deleteWebhook(p.drop_pending_updates ?? false);
        return true;
      }
      if (p.secret_token !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(p.secret_token)) {
        throw tgErrors.badRequest('secret token contains unallowed characters');
      }
      let url: URL;
      try {
        url = new URL(p.url);
      } catch {
        throw tgErrors.badRequest('bad webhook: invalid URL');
      }
      if (url.protocol !== 'http:') throw tgErrors.badRequest('bad webhook: this fake delivers only to http:// URLs');
      const maxConnections = p.max_connections ?? 40;
      if (maxConnections < 1 || maxConnections > 100) throw tgErrors.badRequest('bad webhook: max_connections must be 1-100');
      world.setWebhook(
        { url: p.url, secretToken: p.secret_token, maxConnections, allowedUpdates: p.allowed_updates },
        p.drop_pending_updates ?? false,
      );
      return true;
    },

    deleteWebhook: (params) => {
      const p = parseParams(deleteWebhookSchema, params);
      world.deleteWebhook(p.drop_pending_updates ?? false);
      return true;
    },

    getWebhookInfo: () => world.webhookInfo(),

    answerCallbackQuery: (params) => {
      const p = parseParams(answerSchema, params);
      const rec = store.callbacks.get(p.callback_query_id);
      const now = world.clock.now();
      if (!rec || rec.answeredAt !== undefined || now - rec.injectedAt > world.callbackAnswerWindowMs) {
        throw tgErrors.queryTooOld();
      }
      rec.answeredAt = now;
      rec.answer = {};
      if (p.text !== undefined) rec.answer.text = p.text;
      if (p.show_alert !== undefined) rec.answer.show_alert = p.show_alert;
      if (p.url !== undefined) rec.answer.url = p.url;
      if (p.cache_time !== undefined) rec.answer.cache_time = p.cache_time;
      return true;
    },

    setMyCommands: (params) => {
      const p = parseParams(setCommandsSchema, params);
      if (p.commands.length > 100) throw tgErrors.badRequest('BOT_COMMANDS_TOO_MUCH');
      for (const c of p.commands) {
        if (!/^[a-z0-9_]{1,32}$/.test(c.command)) throw tgErrors.badRequest('BOT_COMMAND_INVALID');
        if (c.description.length < 1 || c.description.length > 256) throw tgErrors.badRequest('BOT_COMMAND_DESCRIPTION_INVALID');
      }
      const list: TgBotCommand[] = p.commands.map((c) => ({ command: c.command, description: c.description }));
      store.commands.set(commandsKey(p.scope, p.language_code), list);
      return true;
    },

    getMyCommands: (params) => {
      const p = parseParams(scopeSchema, params);
      return (store.commands.get(commandsKey(p.scope, p.language_code)) ?? []).map((c) => ({ ...c }));
    },

    deleteMyCommands: (params) => {
      const p = parseParams(scopeSchema, params);
      store.commands.delete(commandsKey(p.scope, p.language_code));
      return true;
    },

    getFile: (params) => {
      const p = parseParams(getFileSchema, params);
      const f = store.files.get(p.file_id);
      if (!f) throw tgErrors.badRequest('invalid file_id');
      return { file_id: f.file_id, file_unique_id: f.file_unique_id, file_size: f.data.length, file_path: f.file_path };
    },
  };
}
