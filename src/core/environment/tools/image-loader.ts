/**
 * Loads one image for `read_image` / `describe_image`: a Workspace-relative or absolute path, an
 * http(s) URL or a data URL; at most 5 MB; the format is sniffed from the bytes (png, jpeg, gif, webp)
 * rather than trusted from a name or header; secret files and forbidden paths are refused. Failures throw `ImageLoadError` with a message for the model.
 */
import { promises as fs } from 'node:fs';
import { TOOL_IMAGE_MAX_BYTES } from '../limits';
import type { ToolReach } from '../../interfaces';
import { refusalFor, statOrNull } from './file-io';
import { resolvePath } from './tool-kit';

export class ImageLoadError extends Error {}

export interface LoadedImage {
  mimeType: string;
  bytes: number;
  dataUrl: string;
  /** Absolute path or the URL, for messages. */
  where: string;
}

const LIMIT_TEXT = `${TOOL_IMAGE_MAX_BYTES / (1024 * 1024)} MB`;

export function sniffImageType(buf: Buffer): string | null {
  if (buf.length >= 8 && buf.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return 'image/jpeg';
  if (buf.length >= 6 && (buf.subarray(0, 6).toString('latin1') === 'GIF87a' || buf.subarray(0, 6).toString('latin1') === 'GIF89a')) return 'image/gif';
  if (buf.length >= 12 && buf.subarray(0, 4).toString('latin1') === 'RIFF' && buf.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return null;
}

async function fetchLimited(url: string, signal: AbortSignal): Promise<Buffer> {
  let res: Response;
  try {
    res = await fetch(url, { signal, redirect: 'follow' });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new ImageLoadError(`Could not fetch ${url}: ${(err as Error).message}`);
  }
  if (!res.ok) throw new ImageLoadError(`Could not fetch ${url}: HTTP ${res.status}`);
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > TOOL_IMAGE_MAX_BYTES) {
    await res.body?.cancel().catch(() => undefined);
    throw new ImageLoadError(`Image at ${url} is larger than ${LIMIT_TEXT} (${declared} bytes).`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  if (res.body) {
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > TOOL_IMAGE_MAX_BYTES) {
        await reader.cancel().catch(() => undefined);
        throw new ImageLoadError(`Image at ${url} is larger than ${LIMIT_TEXT}.`);
      }
      chunks.push(Buffer.from(value));
    }
  }
  return Buffer.concat(chunks);
}

function fromDataUrl(source: string): Buffer {
  const m = /^data:([^;,]*)(;base64)?,(.*)$/s.exec(source);
  if (!m || !m[2]) throw new ImageLoadError('Unsupported data URL: expected data:<type>;base64,<data>.');
  const buf = Buffer.from(m[3], 'base64');
  if (buf.length > TOOL_IMAGE_MAX_BYTES) throw new ImageLoadError(`Image is larger than ${LIMIT_TEXT} (${buf.length} bytes).`);
  return buf;
}

export async function loadImage(
  source: string,
  workspaceDir: string,
  signal: AbortSignal,
  env: Record<string, string> | undefined,
  reach: (absPath: string) => Promise<ToolReach>,
): Promise<LoadedImage> {
  let buf: Buffer;
  let where: string;
  if (/^https?:\/\//i.test(source)) {
    where = source;
    buf = await fetchLimited(source, signal);
  } else if (/^data:/i.test(source)) {
    where = 'data URL';
    buf = fromDataUrl(source);
  } else {
    where = resolvePath(workspaceDir, source, env);
    const refused = await refusalFor(where, reach);
    if (refused) throw new ImageLoadError(refused);
    const stat = await statOrNull(where);
    if (!stat) throw new ImageLoadError(`File not found: ${where}`);
    if (!stat.isFile()) throw new ImageLoadError(`Not a regular file: ${where}`);
    if (stat.size > TOOL_IMAGE_MAX_BYTES) throw new ImageLoadError(`Image ${where} is larger than ${LIMIT_TEXT} (${stat.size} bytes).`);
    buf = await fs.readFile(where);
  }
  const mimeType = sniffImageType(buf);
  if (!mimeType) throw new ImageLoadError(`${where} is not a supported image (png, jpeg, gif or webp).`);
  return { mimeType, bytes: buf.length, dataUrl: `data:${mimeType};base64,${buf.toString('base64')}`, where };
}
