/**
 * Inbound files: each file of a Slack message becomes an InboundAttachment (images by MIME type) whose
 * `download()` fetches `url_private_download` with the bot token. Without `files:read` Slack answers with its
 * HTML login page and status 200, so an HTML answer for a file that is not HTML is an error naming the
 * scope. `sizeBytes` comes from the event, so the gateway refuses big files before downloading; a body past
 * MAX_FILE_BYTES is cut off while it streams in.
 */
import * as z from 'zod';
import type { InboundAttachment } from '../contract/messages';

/** The largest file the adapter downloads (the gateway's own attachment limit). */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;

export const slackFileSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().optional(),
  title: z.string().optional(),
  mimetype: z.string().optional(),
  size: z.number().int().nonnegative().optional(),
  url_private: z.string().optional(),
  url_private_download: z.string().optional(),
});
export type SlackFile = z.infer<typeof slackFileSchema>;

/** Fetches a private file URL's bytes (with the bot token), refusing more than `maxBytes`. */
export type FileFetcher = (url: string, expectHtml: boolean, maxBytes: number) => Promise<Buffer>;

export function slackFileAttachment(f: SlackFile, fetchFile: FileFetcher, maxBytes = MAX_FILE_BYTES): InboundAttachment {
  const name = f.name ?? f.title ?? `file_${f.id}`;
  const mime = f.mimetype;
  const url = f.url_private_download ?? f.url_private;
  return {
    kind: mime?.toLowerCase().startsWith('image/') ? 'image' : 'file',
    name,
    ...(mime ? { mimeType: mime } : {}),
    ...(f.size !== undefined ? { sizeBytes: f.size } : {}),
    download: async () => {
      if (!url) throw new Error(`Slack sent no download URL for ${name}`);
      if (f.size !== undefined && f.size > maxBytes) throw new Error(`${name} is larger than ${Math.floor(maxBytes / 1048576)} MB`);
      return fetchFile(url, mime?.toLowerCase().includes('html') ?? false, maxBytes);
    },
  };
}

/** The real fetcher: GET with `Authorization: Bearer <bot token>`, streamed with a size cap and a deadline. */
export function botFileFetcher(botToken: string, timeoutMs = 30_000): FileFetcher {
  return async (url, expectHtml, maxBytes) => {
    const res = await fetch(url, { headers: { authorization: `Bearer ${botToken}` }, redirect: 'follow', signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) throw new Error(`Slack answered HTTP ${res.status} for the file`);
    if (!expectHtml && (res.headers.get('content-type') ?? '').toLowerCase().startsWith('text/html')) {
      await res.body?.cancel();
      throw new Error('Slack answered with its login page: the app needs the files:read scope');
    }
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of res.body ?? []) {
      total += chunk.length;
      if (total > maxBytes) throw new Error(`the file is larger than ${Math.floor(maxBytes / 1048576)} MB`);
      chunks.push(Buffer.from(chunk));
    }
    return Buffer.concat(chunks);
  };
}
