/**
 * Identity, lookup and assistant methods of the fake Slack Web API: auth.test, apps.connections.open
 * (app-level token only; answers the fake's Socket Mode URL), users.info, conversations.info /
 * .history / .replies, and assistant.threads.setStatus / setTitle / setSuggestedPrompts, which keep
 * the per-thread status line, title and prompts a user of the assistant pane sees.
 */
import { SlackApiError, slackErrors } from './slack-errors';
import { optJson, optNumber, optString, reqString } from './slack-http';
import type { MethodCall, MethodSpec, SlackWorld } from './slack-method-types';
import type { StoredChannel, StoredMessage } from './slack-types';
import { conversationWire, messageWire, userWire } from './slack-wire';

const READ = ['channels:read', 'groups:read', 'im:read', 'mpim:read'];
const HISTORY = ['channels:history', 'groups:history', 'im:history', 'mpim:history'];

export function infoMethods(world: SlackWorld): Record<string, MethodSpec> {
  const { store } = world;

  const authTest = ({ auth }: MethodCall): Record<string, unknown> => {
    const base = { url: `https://${store.team.domain}.slack.com/`, team: store.team.name, team_id: store.team.id, is_enterprise_install: false };
    if (auth.kind === 'app') return { ...base, app_id: store.bot.appId };
    return { ...base, user: store.bot.name, user_id: store.bot.userId, bot_id: store.bot.botId };
  };

  const member = (params: Record<string, unknown>, key: string): StoredChannel => {
    const ch = world.visible(optString(params, key));
    if (ch.kind !== 'im' && !ch.botMember) throw slackErrors.notInChannel();
    return ch;
  };

  const page = (list: StoredMessage[], params: Record<string, unknown>): Record<string, unknown> => {
    const limit = Math.max(1, Math.min(1000, optNumber(params, 'limit') ?? 100));
    const cursor = Number(optString(params, 'cursor') ?? '0') || 0;
    const slice = list.slice(cursor, cursor + limit);
    const more = cursor + limit < list.length;
    return {
      messages: slice.map((m) => messageWire(store, m)), has_more: more,
      response_metadata: { next_cursor: more ? String(cursor + limit) : '' },
    };
  };

  const history = ({ params }: MethodCall): Record<string, unknown> => {
    const ch = member(params, 'channel');
    const top = ch.order.map((ts) => ch.messages.get(ts)!).filter((m) => m.thread_ts === undefined || m.thread_ts === m.ts || m.reply_broadcast);
    return page(top.reverse(), params);
  };

  const replies = ({ params }: MethodCall): Record<string, unknown> => {
    const ch = member(params, 'channel');
    const root = store.threadRoot(ch, reqString(params, 'ts'));
    const parent = ch.messages.get(root);
    if (!parent) throw new SlackApiError('thread_not_found');
    return page([parent, ...store.replies(ch, root)], params);
  };

  const thread = (params: Record<string, unknown>) => {
    const ch = world.visible(optString(params, 'channel_id'));
    return { ch, t: store.assistantThread(ch.id, reqString(params, 'thread_ts')) };
  };

  const setStatus = ({ params }: MethodCall): Record<string, unknown> => {
    const { t } = thread(params);
    const status = optString(params, 'status');
    if (status === undefined) throw slackErrors.invalidArguments('missing required field: status');
    const loading = optJson(params, 'loading_messages', () => slackErrors.invalidArguments('loading_messages must be a JSON array'));
    if (loading !== undefined && (!Array.isArray(loading) || loading.length > 10 || loading.some((s) => typeof s !== 'string'))) {
      throw slackErrors.invalidArguments('loading_messages must be an array of at most 10 strings');
    }
    const at = world.clock.now();
    t.status = status;
    t.loading_messages = loading as string[] | undefined;
    t.statusSetAt = at;
    t.statusHistory.push(loading ? { status, loading_messages: [...(loading as string[])], at } : { status, at });
    return {};
  };

  const setTitle = ({ params }: MethodCall): Record<string, unknown> => {
    const { t } = thread(params);
    t.title = reqString(params, 'title');
    return {};
  };

  const setPrompts = ({ params }: MethodCall): Record<string, unknown> => {
    const ch = world.visible(optString(params, 'channel_id'));
    const t = store.assistantThread(ch.id, optString(params, 'thread_ts') ?? '');
    const prompts = optJson(params, 'prompts', () => slackErrors.invalidArguments('prompts must be a JSON array'));
    if (!Array.isArray(prompts) || prompts.length === 0 || prompts.length > 4) throw slackErrors.invalidArguments('prompts must hold 1 to 4 items');
    for (const p of prompts) {
      if (typeof p?.title !== 'string' || typeof p?.message !== 'string') throw slackErrors.invalidArguments('each prompt needs a title and a message');
    }
    const title = optString(params, 'title');
    t.suggestedPrompts = title === undefined ? { prompts: structuredClone(prompts) } : { title, prompts: structuredClone(prompts) };
    return {};
  };

  return {
    'auth.test': { run: authTest, token: 'any', scopes: [] },
    'apps.connections.open': { run: () => ({ url: world.socketUrl() }), token: 'app', scopes: ['connections:write'] },
    'users.info': {
      run: ({ params }) => {
        const u = store.users.get(reqString(params, 'user'));
        if (!u) throw slackErrors.userNotFound();
        return { user: userWire(store, u) };
      },
      token: 'bot',
      scopes: ['users:read'],
    },
    'conversations.info': { run: ({ params }) => ({ channel: conversationWire(store, world.visible(optString(params, 'channel'))) }), token: 'bot', scopes: READ },
    'conversations.history': { run: history, token: 'bot', scopes: HISTORY },
    'conversations.replies': { run: replies, token: 'bot', scopes: HISTORY },
    'assistant.threads.setStatus': { run: setStatus, token: 'bot', scopes: ['assistant:write', 'chat:write'] },
    'assistant.threads.setTitle': { run: setTitle, token: 'bot', scopes: ['assistant:write'] },
    'assistant.threads.setSuggestedPrompts': { run: setPrompts, token: 'bot', scopes: ['assistant:write'] },
  };
}
