/**
 * Inbound files: each attachment of a message becomes an InboundAttachment (an image when its content type
 * says so, else a file) whose `download()` fetches the signed CDN URL Discord sent. The size limit is the
 * one Discord last reported for that guild in an interaction's `attachment_size_limit` (boosts raise it),
 * else Discord's default 10 MiB; larger files are refused before any byte is fetched, and on arrival.
 */
import type { InboundAttachment } from '../contract/messages';
import type { AttachmentPayload } from './payloads';

export const DEFAULT_ATTACHMENT_LIMIT = 10 * 1024 * 1024;

/** Size limits per guild ('dm' for direct messages), as interactions report them. */
export class AttachmentLimits {
  private readonly limits = new Map<string, number>();

  note(scope: string, bytes: number | undefined): void {
    if (bytes !== undefined && bytes > 0) this.limits.set(scope, bytes);
  }

  limitFor(scope: string): number {
    return this.limits.get(scope) ?? DEFAULT_ATTACHMENT_LIMIT;
  }
}

const size = (n: number) => (n >= 1024 * 1024 ? `${(n / 1048576).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`);

function refuse(name: string, bytes: number, limit: number): void {
  if (bytes > limit) throw new Error(`${name} is ${size(bytes)}; this server takes attachments up to ${size(limit)}`);
}

/** A GET of the (signed) attachment URL. */
async function fetchUrl(url: string): Promise<Buffer> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`downloading a Discord attachment failed: HTTP ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

export function attachmentOf(a: AttachmentPayload, limit: number): InboundAttachment {
  const mime = a.content_type?.split(';')[0].trim().toLowerCase();
  return {
    kind: mime?.startsWith('image/') ? 'image' : 'file',
    name: a.filename,
    ...(mime ? { mimeType: mime } : {}),
    sizeBytes: a.size,
    download: async () => {
      refuse(a.filename, a.size, limit);
      const data = await fetchUrl(a.url);
      refuse(a.filename, data.length, limit);
      return data;
    },
  };
}
