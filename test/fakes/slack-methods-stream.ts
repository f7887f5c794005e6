/**
 * Native streaming of the fake Slack Web API: chat.startStream posts a growing bot reply in a thread
 * (thread_ts required; outside IMs `recipient_user_id` + `recipient_team_id` are required),
 * chat.appendStream adds `markdown_text` (≤12,000) and/or `chunks` (markdown_text, task_update,
 * plan_update, blocks), chat.stopStream settles it with optional final text, chunks, `blocks` under the
 * text and metadata. Appends to a settled or foreign message get message_not_in_streaming_state.
 */
import { parseBlocks, validateBlocks } from './slack-blocks';
import { slackErrors } from './slack-errors';
import { optJson, optString, reqString } from './slack-http';
import type { MethodCall, MethodSpec, SlackWorld } from './slack-method-types';
import type { Chunk, StoredMessage } from './slack-types';
import { messageWire } from './slack-wire';

const TASK_STATUSES = new Set(['pending', 'in_progress', 'complete', 'error']);

function readChunks(world: SlackWorld, params: Record<string, unknown>): Chunk[] {
  const v = optJson(params, 'chunks', () => slackErrors.invalidArguments('chunks must be a JSON array'));
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw slackErrors.invalidArguments('chunks must be an array');
  return v.map((raw, i) => {
    const c = raw as Chunk;
    const where = `[json-pointer:/chunks/${i}]`;
    if (typeof c !== 'object' || c === null || typeof c.type !== 'string') throw slackErrors.invalidArguments(`chunk must be an object with a type ${where}`);
    switch (c.type) {
      case 'markdown_text':
        if (typeof c.text !== 'string') throw slackErrors.invalidArguments(`missing required field: text ${where}`);
        if ([...c.text].length > world.messageLimits.markdownTextMax) throw slackErrors.msgTooLong();
        break;
      case 'task_update':
        if (typeof c.id !== 'string' || typeof c.title !== 'string') throw slackErrors.invalidArguments(`missing required field: id, title ${where}`);
        if (!TASK_STATUSES.has(String(c.status))) throw slackErrors.invalidArguments(`must be one of pending, in_progress, complete, error ${where}`);
        break;
      case 'plan_update':
        if (typeof c.title !== 'string') throw slackErrors.invalidArguments(`missing required field: title ${where}`);
        break;
      case 'blocks': {
        if (!Array.isArray(c.blocks)) throw slackErrors.invalidArguments(`missing required field: blocks ${where}`);
        validateBlocks(c.blocks as never, world.blockLimits);
        break;
      }
      default:
        throw slackErrors.invalidArguments(`unsupported chunk type: ${c.type} ${where}`);
    }
    return structuredClone(c);
  });
}

function apply(world: SlackWorld, msg: StoredMessage, markdown: string | undefined, chunks: Chunk[]): void {
  const s = msg.stream!;
  let text = msg.markdown ?? '';
  if (markdown !== undefined) {
    text += markdown;
    s.chunks.push({ type: 'markdown_text', text: markdown });
  }
  for (const c of chunks) {
    s.chunks.push(c);
    if (c.type === 'markdown_text') text += c.text as string;
    else if (c.type === 'task_update') s.tasks.set(c.id as string, { ...(s.tasks.get(c.id as string) ?? {}), ...c });
    else if (c.type === 'blocks') msg.blocks = [...(msg.blocks ?? []), ...world.store.withBlockIds(c.blocks as never)];
  }
  msg.markdown = text;
  msg.text = text;
  msg.changedAt = world.clock.now();
}

function readMarkdown(world: SlackWorld, params: Record<string, unknown>): string | undefined {
  const md = optString(params, 'markdown_text');
  if (md !== undefined && [...md].length > world.messageLimits.markdownTextMax) throw slackErrors.msgTooLong();
  return md;
}

export function streamMethods(world: SlackWorld): Record<string, MethodSpec> {
  const { store } = world;

  const streaming = (params: Record<string, unknown>): StoredMessage => {
    const ch = world.postable(optString(params, 'channel'));
    const msg = ch.messages.get(reqString(params, 'ts'));
    if (!msg) throw slackErrors.messageNotFound();
    if (!msg.stream || msg.stream.state !== 'in_progress' || msg.bot_id !== store.bot.botId) throw slackErrors.notInStreamingState();
    return msg;
  };

  const start = ({ params }: MethodCall): Record<string, unknown> => {
    const ch = world.postable(optString(params, 'channel'));
    const threadTs = reqString(params, 'thread_ts');
    const recipientUser = optString(params, 'recipient_user_id');
    const recipientTeam = optString(params, 'recipient_team_id');
    if (ch.kind !== 'im') {
      if (!recipientUser) throw slackErrors.missingRecipientUserId();
      if (!recipientTeam) throw slackErrors.missingRecipientTeamId();
    }
    if (recipientUser && !store.users.has(recipientUser)) throw slackErrors.userNotFound();
    const markdown = readMarkdown(world, params);
    const chunks = readChunks(world, params);
    const msg = store.addMessage(ch, {
      fromBot: true, user: store.bot.userId, bot_id: store.bot.botId, app_id: store.bot.appId, text: '', markdown: '', thread_ts: threadTs, via: 'api',
      stream: { state: 'in_progress', appends: 0, chunks: [], tasks: new Map(), recipient_user_id: recipientUser, recipient_team_id: recipientTeam, startedAt: world.clock.now() },
    });
    apply(world, msg, markdown, chunks);
    world.botMessageChanged(msg, 'posted');
    return { channel: ch.id, ts: msg.ts };
  };

  const append = ({ params }: MethodCall): Record<string, unknown> => {
    const msg = streaming(params);
    const markdown = readMarkdown(world, params);
    const chunks = readChunks(world, params);
    if (markdown === undefined && chunks.length === 0) throw slackErrors.invalidArguments('missing required field: markdown_text or chunks');
    apply(world, msg, markdown, chunks);
    msg.stream!.appends++;
    world.botMessageChanged(msg, 'updated');
    return { channel: msg.channel, ts: msg.ts };
  };

  const stop = ({ params }: MethodCall): Record<string, unknown> => {
    const msg = streaming(params);
    const markdown = readMarkdown(world, params);
    const chunks = readChunks(world, params);
    const blocks = parseBlocks(params);
    if (blocks) validateBlocks(blocks, world.blockLimits);
    const metadata = optJson(params, 'metadata', () => slackErrors.invalidMetadataFormat());
    apply(world, msg, markdown, chunks);
    if (blocks?.length) msg.blocks = [...(msg.blocks ?? []), ...store.withBlockIds(blocks)];
    if (metadata !== undefined) msg.metadata = metadata;
    msg.stream!.state = 'completed';
    msg.stream!.stoppedAt = world.clock.now();
    world.botMessageChanged(msg, 'updated');
    return { channel: msg.channel, ts: msg.ts, message: messageWire(store, msg) };
  };

  const write = ['chat:write'];
  return {
    'chat.startStream': { run: start, token: 'bot', scopes: write },
    'chat.appendStream': { run: append, token: 'bot', scopes: write },
    'chat.stopStream': { run: stop, token: 'bot', scopes: write },
  };
}
