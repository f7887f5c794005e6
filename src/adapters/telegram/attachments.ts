/**
 * Inbound files: a photo (its largest size, JPEG) or a document becomes an InboundAttachment whose
 * `download()` resolves the file with `getFile` and fetches `<apiRoot>/file/bot<token>/<file_path>`.
 * `sizeBytes` comes from the update, so the gateway can refuse files over its limits before downloading;
 * the Bot API serves at most 20 MB through getFile, and larger files fail here with a clear message.
 */
import type { InboundAttachment } from '../contract/messages';

/** getFile's download limit on the public Bot API. */
export const GETFILE_MAX_BYTES = 20 * 1024 * 1024;

export interface PhotoSizeLike {
  file_id: string;
  file_unique_id: string;
  width: number;
  height: number;
  file_size?: number;
}

export interface DocumentLike {
  file_id: string;
  file_unique_id: string;
  file_name?: string;
  mime_type?: string;
  file_size?: number;
}

/** Fetches a file's bytes by its file_id (getFile + the file endpoint). */
export type FileDownloader = (fileId: string) => Promise<Buffer>;

function tooBig(name: string, size: number | undefined, max: number): void {
  if (size !== undefined && size > max) {
    throw new Error(`${name} is ${(size / 1048576).toFixed(1)} MB; Telegram bots can download files up to ${Math.floor(max / 1048576)} MB`);
  }
}

function attachment(fields: Omit<InboundAttachment, 'download'>, fileId: string, download: FileDownloader, maxBytes: number): InboundAttachment {
  return {
    ...fields,
    download: async () => {
      tooBig(fields.name, fields.sizeBytes, maxBytes);
      const data = await download(fileId);
      tooBig(fields.name, data.length, maxBytes);
      return data;
    },
  };
}

export function photoAttachment(sizes: readonly PhotoSizeLike[], download: FileDownloader, maxBytes = GETFILE_MAX_BYTES): InboundAttachment | undefined {
  if (sizes.length === 0) return undefined;
  const largest = sizes.reduce((best, s) => (s.width * s.height > best.width * best.height || (s.width * s.height === best.width * best.height && (s.file_size ?? 0) > (best.file_size ?? 0)) ? s : best));
  return attachment(
    { kind: 'image', name: `photo_${largest.file_unique_id}.jpg`, mimeType: 'image/jpeg', ...(largest.file_size !== undefined ? { sizeBytes: largest.file_size } : {}) },
    largest.file_id,
    download,
    maxBytes,
  );
}

export function documentAttachment(doc: DocumentLike, download: FileDownloader, maxBytes = GETFILE_MAX_BYTES): InboundAttachment {
  const mime = doc.mime_type;
  return attachment(
    {
      kind: mime?.toLowerCase().startsWith('image/') ? 'image' : 'file',
      name: doc.file_name ?? `file_${doc.file_unique_id}`,
      ...(mime ? { mimeType: mime } : {}),
      ...(doc.file_size !== undefined ? { sizeBytes: doc.file_size } : {}),
    },
    doc.file_id,
    download,
    maxBytes,
  );
}

/** The real downloader: `getFile` through the bot's API, then a GET of the file URL. */
export function botFileDownloader(getFile: (fileId: string) => Promise<{ file_path?: string }>, apiRoot: string, token: string): FileDownloader {
  return async (fileId) => {
    const file = await getFile(fileId);
    if (!file.file_path) throw new Error(`Telegram returned no file_path for file ${fileId}`);
    const path = file.file_path.split('/').map(encodeURIComponent).join('/');
    const res = await fetch(`${apiRoot}/file/bot${token}/${path}`);
    if (!res.ok) throw new Error(`downloading Telegram file ${fileId} failed: HTTP ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  };
}
