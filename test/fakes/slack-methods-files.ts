/**
 * Files in the fake Slack, as `client.filesUploadV2()` drives them: files.getUploadURLExternal hands
 * out a one-file upload URL, the client POSTs the bytes there (multipart or raw), and
 * files.completeUploadExternal finishes the upload and, given a channel, shares it in a bot message
 * (in a thread with `thread_ts`, with `initial_comment`). `url_private` downloads need
 * `Authorization: Bearer <bot token>` with files:read; anything else gets Slack's HTML login page, 200.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseBlocks, validateBlocks } from './slack-blocks';
import { SlackApiError, slackErrors } from './slack-errors';
import { sendRaw } from './http-body';
import { bearerOf, optJson, optNumber, optString, readSlackBody, reqString } from './slack-http';
import type { MethodCall, MethodSpec, SlackWorld } from './slack-method-types';
import { boundaryOf, parseMultipart } from './multipart-form';
import type { StoredFile } from './slack-types';
import { fileWire } from './slack-wire';

export const LOGIN_PAGE =
  '<!DOCTYPE html><html lang="en-US"><head><meta charset="utf-8"><title>Slack</title></head>' +
  '<body><div id="page"><h1>Sign in to Slack</h1><form id="signin_form" method="post" action="/">' +
  '<input type="email" name="email" placeholder="name@work-email.com"><button type="submit">Sign in with Email</button></form></div></body></html>';

export function fileMethods(world: SlackWorld): Record<string, MethodSpec> {
  const { store } = world;

  const getUploadUrl = ({ params }: MethodCall): Record<string, unknown> => {
    const filename = reqString(params, 'filename');
    const length = optNumber(params, 'length');
    if (!length || length <= 0) throw slackErrors.missingArgument();
    const altText = optString(params, 'alt_text') ?? optString(params, 'alt_txt');
    if (altText !== undefined && altText.length > 1000) throw new SlackApiError('alt_txt_too_large');
    const f = store.newFile({ name: filename, user: store.bot.userId, declaredLength: length, alt_text: altText });
    f.uploadToken = store.newId('UP').toLowerCase() + Math.random().toString(36).slice(2, 10);
    return { upload_url: world.uploadUrl(f.id, f.uploadToken), file_id: f.id };
  };

  const complete = ({ params }: MethodCall): Record<string, unknown> => {
    const list = optJson(params, 'files', () => slackErrors.invalidArguments('files must be a JSON array'));
    if (!Array.isArray(list) || list.length === 0) throw slackErrors.invalidArguments('missing required field: files');
    const done: StoredFile[] = [];
    for (const entry of list as Array<{ id?: unknown; title?: unknown }>) {
      const f = typeof entry?.id === 'string' ? store.files.get(entry.id) : undefined;
      if (!f || !f.uploaded) throw slackErrors.fileNotFound();
      if (typeof entry.title === 'string' && entry.title) f.title = entry.title;
      f.completed = true;
      done.push(f);
    }
    const channelRef = optString(params, 'channel_id') ?? optString(params, 'channels');
    if (channelRef) {
      let ch;
      try {
        ch = world.postable(channelRef.split(',')[0]);
      } catch (err) {
        if (err instanceof SlackApiError && err.error === 'channel_not_found') throw slackErrors.invalidChannel();
        throw err;
      }
      const blocks = parseBlocks(params);
      if (blocks) validateBlocks(blocks, world.blockLimits);
      for (const f of done) f.channels.push(ch.id);
      const msg = store.addMessage(ch, {
        fromBot: true, user: store.bot.userId, bot_id: store.bot.botId, app_id: store.bot.appId, text: optString(params, 'initial_comment') ?? '',
        blocks: blocks?.length ? blocks : undefined, thread_ts: optString(params, 'thread_ts') || undefined, files: done.map((f) => f.id), via: 'api',
      });
      world.botMessageChanged(msg, 'posted');
    }
    return { files: done.map((f) => fileWire(store, f)) };
  };

  const info = ({ params }: MethodCall): Record<string, unknown> => {
    const f = store.files.get(reqString(params, 'file'));
    if (!f || !f.completed) throw new SlackApiError('file_not_found');
    return { file: fileWire(store, f), comments: [], response_metadata: { next_cursor: '' } };
  };

  return {
    'files.getUploadURLExternal': { run: getUploadUrl, token: 'bot', scopes: ['files:write'] },
    'files.completeUploadExternal': { run: complete, token: 'bot', scopes: ['files:write'] },
    'files.info': { run: info, token: 'bot', scopes: ['files:read'] },
  };
}

/** POST <upload_url>: stores the bytes (the first file part of a multipart body, else the raw body). */
export async function handleUpload(world: SlackWorld, req: IncomingMessage, res: ServerResponse, uploadToken: string): Promise<void> {
  const body = await readSlackBody(req);
  const f = [...world.store.files.values()].find((x) => x.uploadToken === uploadToken);
  if (!f || f.completed || req.method !== 'POST') return sendRaw(res, 404, 'Not Found', 'text/plain');
  let data = body;
  const type = req.headers['content-type'] ?? '';
  const boundary = type.toLowerCase().startsWith('multipart/form-data') ? boundaryOf(type) : undefined;
  if (boundary) {
    try {
      const parsed = parseMultipart(body, boundary);
      const first = [...parsed.files.values()][0];
      data = first ? first.data : Buffer.from(Object.values(parsed.fields)[0] ?? '');
    } catch {
      return sendRaw(res, 400, 'Bad Request', 'text/plain');
    }
  }
  f.data = data;
  f.size = data.length;
  f.uploaded = true;
  sendRaw(res, 200, `OK - ${data.length}`, 'text/plain');
}

/** GET url_private(_download): the bytes for the bot token with files:read, else the login page. */
export function handleDownload(world: SlackWorld, req: IncomingMessage, res: ServerResponse, fileId: string, botToken: string): void {
  const authed = bearerOf(req) === botToken && world.scopes.has('files:read');
  if (!authed) return sendRaw(res, 200, LOGIN_PAGE, 'text/html; charset=utf-8');
  const f = world.store.files.get(fileId);
  if (!f || !f.data) return sendRaw(res, 404, '<html><body>File not found</body></html>', 'text/html; charset=utf-8');
  sendRaw(res, 200, f.data, f.mimetype, { 'content-disposition': `attachment; filename="${encodeURIComponent(f.name)}"` });
}
