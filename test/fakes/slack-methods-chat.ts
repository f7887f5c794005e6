/**
 * Message methods of the fake Slack Web API: chat.postMessage, chat.update, chat.delete,
 * chat.postEphemeral, chat.getPermalink and reactions.add, with Slack's checks and error codes
 * (no_text, markdown_text_conflict, invalid_blocks…, message_not_found, cant_update_message,
 * streaming_state_conflict). Text over 40,000 characters is truncated with the `message_truncated`
 * warning on post, refused with msg_too_long on update; omitted `blocks` on update keep the old ones.
 */
import { parseBlocks, validateBlocks } from './slack-blocks';
import { SlackApiError, slackErrors } from './slack-errors';
import { optBool, optJson, optString, reqString } from './slack-http';
import type { MethodCall, MethodSpec, SlackWorld } from './slack-method-types';
import type { Block, StoredMessage } from './slack-types';
import { messageWire } from './slack-wire';

interface Content {
  text?: string;
  markdown?: string;
  blocks?: Block[];
  hasAttachments: boolean;
}

function readContent(world: SlackWorld, params: Record<string, unknown>): Content {
  const text = optString(params, 'text');
  const markdown = optString(params, 'markdown_text');
  const blocks = parseBlocks(params);
  const attachments = optJson(params, 'attachments', () => new SlackApiError('invalid_attachments'));
  if (markdown !== undefined && (text !== undefined || blocks !== undefined)) throw slackErrors.markdownTextConflict();
  if (blocks) validateBlocks(blocks, world.blockLimits);
  if (markdown !== undefined && [...markdown].length > world.messageLimits.markdownTextMax) throw slackErrors.msgTooLong();
  return { text, markdown, blocks, hasAttachments: Array.isArray(attachments) && attachments.length > 0 };
}

function readMetadata(params: Record<string, unknown>): unknown {
  const m = optJson(params, 'metadata', () => slackErrors.invalidMetadataFormat());
  if (m === undefined) return undefined;
  if (typeof m !== 'object' || m === null || Array.isArray(m)) throw slackErrors.invalidMetadataFormat();
  return m;
}

/** Applies the 40,000-character truncation; returns the warning fields when it cut. */
function truncate(world: SlackWorld, text: string | undefined): { text: string; warn?: Record<string, unknown> } {
  const max = world.messageLimits.textTruncateAt;
  if (text === undefined) return { text: '' };
  const cps = [...text];
  if (cps.length <= max) return { text };
  return {
    text: cps.slice(0, max).join(''),
    warn: {
      response_metadata: {
        messages: [`[WARN] Your message was truncated but still posted. The \`text\` field accepts up to ${max.toLocaleString('en-US')} characters.`],
        warnings: ['message_truncated'],
      },
    },
  };
}

function ownMessage(world: SlackWorld, msg: StoredMessage | undefined, notOwn: () => SlackApiError): StoredMessage {
  if (!msg) throw slackErrors.messageNotFound();
  if (!msg.fromBot || msg.bot_id !== world.store.bot.botId) throw notOwn();
  return msg;
}

export function chatMethods(world: SlackWorld): Record<string, MethodSpec> {
  const { store } = world;
  const write = ['chat:write'];

  const postMessage = ({ params }: MethodCall): Record<string, unknown> => {
    const ch = world.postable(optString(params, 'channel'));
    const c = readContent(world, params);
    if (!c.text && !c.blocks?.length && !c.markdown && !c.hasAttachments) throw slackErrors.noText();
    const { text, warn } = truncate(world, c.text);
    const threadTs = optString(params, 'thread_ts');
    const msg = store.addMessage(ch, {
      fromBot: true, user: store.bot.userId, bot_id: store.bot.botId, app_id: store.bot.appId, text, markdown: c.markdown,
      blocks: c.blocks?.length ? c.blocks : undefined, thread_ts: threadTs || undefined, reply_broadcast: threadTs ? optBool(params, 'reply_broadcast') : undefined,
      mrkdwn: optBool(params, 'mrkdwn'), metadata: readMetadata(params), username: optString(params, 'username'), via: 'api',
    });
    world.botMessageChanged(msg, 'posted');
    return { channel: ch.id, ts: msg.ts, message: messageWire(store, msg), ...warn };
  };

  const update = ({ params }: MethodCall): Record<string, unknown> => {
    const ch = world.postable(optString(params, 'channel'));
    const msg = ownMessage(world, ch.messages.get(reqString(params, 'ts')), slackErrors.cantUpdateMessage);
    if (msg.stream?.state === 'in_progress') throw slackErrors.streamingStateConflict();
    const c = readContent(world, params);
    const fileIds = optString(params, 'file_ids');
    if (c.text === undefined && c.blocks === undefined && c.markdown === undefined && !c.hasAttachments && !fileIds) throw slackErrors.noText();
    if (c.text !== undefined && [...c.text].length > world.messageLimits.updateTextMax) throw slackErrors.msgTooLong();
    if (c.markdown !== undefined) {
      msg.markdown = c.markdown;
      msg.text = c.markdown;
      msg.blocks = undefined;
    } else {
      if (c.text !== undefined) msg.text = c.text;
      if (c.blocks !== undefined) msg.blocks = c.blocks.length ? store.withBlockIds(c.blocks) : undefined;
      msg.markdown = undefined;
    }
    const metadata = readMetadata(params);
    if (metadata !== undefined) msg.metadata = Object.keys(metadata as object).length ? metadata : undefined;
    if (optBool(params, 'reply_broadcast') && msg.thread_ts) msg.reply_broadcast = true;
    msg.edited = { user: store.bot.userId, ts: store.nextTs() };
    msg.editCount++;
    msg.changedAt = world.clock.now();
    world.botMessageChanged(msg, 'updated');
    const wire = messageWire(store, msg);
    return { channel: ch.id, ts: msg.ts, text: msg.text, message: wire };
  };

  const del = ({ params }: MethodCall): Record<string, unknown> => {
    const ch = world.postable(optString(params, 'channel'));
    const msg = ownMessage(world, ch.messages.get(reqString(params, 'ts')), slackErrors.cantDeleteMessage);
    store.deleteMessage(ch, msg.ts);
    world.botMessageChanged(msg, 'deleted');
    return { channel: ch.id, ts: msg.ts };
  };

  const postEphemeral = ({ params }: MethodCall): Record<string, unknown> => {
    const ch = world.postable(optString(params, 'channel'));
    const user = reqString(params, 'user');
    if (!store.users.has(user)) throw slackErrors.userNotFound();
    const inChannel = ch.kind === 'im' ? ch.user === user : ch.members.has(user);
    if (!inChannel) throw slackErrors.userNotInChannel();
    const c = readContent(world, params);
    if (!c.text && !c.blocks?.length && !c.markdown && !c.hasAttachments) throw slackErrors.noText();
    const { text, warn } = truncate(world, c.markdown ?? c.text);
    const ts = store.nextTs();
    store.ephemeral.push({
      channel: ch.id, user, ts, text, blocks: c.blocks?.length ? store.withBlockIds(c.blocks) : undefined,
      thread_ts: optString(params, 'thread_ts') || undefined, at: world.clock.now(), via: 'api',
    });
    return { message_ts: ts, ...warn };
  };

  const permalink = ({ params }: MethodCall): Record<string, unknown> => {
    const ch = world.visible(optString(params, 'channel'));
    const ts = reqString(params, 'message_ts');
    if (!ch.messages.has(ts)) throw slackErrors.messageNotFound();
    return { channel: ch.id, permalink: `${store.baseUrl}/archives/${ch.id}/p${ts.replace('.', '')}` };
  };

  const react = ({ params }: MethodCall): Record<string, unknown> => {
    const ch = world.postable(optString(params, 'channel'));
    const msg = ch.messages.get(reqString(params, 'timestamp'));
    if (!msg) throw slackErrors.messageNotFound();
    const name = reqString(params, 'name').replace(/^:|:$/g, '');
    if (!/^[a-z0-9_+'-]+(::skin-tone-[2-6])?$/.test(name)) throw slackErrors.invalidName();
    let r = msg.reactions.find((x) => x.name === name);
    if (r?.users.includes(store.bot.userId)) throw slackErrors.alreadyReacted();
    if (!r) {
      r = { name, users: [], count: 0 };
      msg.reactions.push(r);
    }
    r.users.push(store.bot.userId);
    r.count++;
    msg.changedAt = world.clock.now();
    return {};
  };

  return {
    'chat.postMessage': { run: postMessage, token: 'bot', scopes: write },
    'chat.update': { run: update, token: 'bot', scopes: write },
    'chat.delete': { run: del, token: 'bot', scopes: write },
    'chat.postEphemeral': { run: postEphemeral, token: 'bot', scopes: write },
    'chat.getPermalink': { run: permalink, token: 'bot', scopes: [] },
    'reactions.add': { run: react, token: 'bot', scopes: ['reactions:write'] },
  };
}
