/**
 * Turns an inbound chat message into the Task's input messages (engine.md §12 "Attachments"): the text,
 * then each attachment saved to the session scratchpad (`attachments/`). Images go to vision models as
 * data URLs; for text-only models, and for every other file, an `[attached image|file: path]` line is
 * appended after the user text. Oversized or undownloadable attachments are skipped with a reason the
 * caller tells the user.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { InboundAttachment, InboundMessage } from '../../adapters/contract/messages';
import * as b from '../../core/omnimessage/builders';
import { attachedFileLine, attachedImageLine } from '../../core/omnimessage/markers';
import type { OmniMessage } from '../../core/omnimessage/types';

/** Per file (Telegram's getFile also stops at 20 MB) and per message. */
export const MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;
export const MAX_ATTACHMENTS = 20;
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export interface PreparedInput {
  messages: OmniMessage[];
  /** Human-readable reasons for attachments that were left out. */
  skipped: string[];
}

function safeName(name: string, index: number): string {
  const base = basename(name).replace(/[^A-Za-z0-9._-]/g, '_').slice(-80) || 'file';
  return `${Date.now()}-${index}-${base}`;
}

async function fetchAttachment(a: InboundAttachment): Promise<Buffer | string> {
  if (a.sizeBytes !== undefined && a.sizeBytes > MAX_ATTACHMENT_BYTES) return `${a.name}: larger than ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB`;
  try {
    const bytes = await a.download();
    return bytes.length > MAX_ATTACHMENT_BYTES ? `${a.name}: larger than ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB` : bytes;
  } catch (err) {
    return `${a.name}: could not be downloaded (${(err as Error).message})`;
  }
}

export async function prepareInput(msg: Pick<InboundMessage, 'text' | 'attachments'>, scratchpadDir: string, vision: boolean): Promise<PreparedInput> {
  const skipped: string[] = [];
  const images: string[] = [];
  const lines: string[] = [];
  const list = msg.attachments.slice(0, MAX_ATTACHMENTS);
  if (msg.attachments.length > MAX_ATTACHMENTS) skipped.push(`only the first ${MAX_ATTACHMENTS} attachments are read`);
  const dir = join(scratchpadDir, 'attachments');
  for (const [i, a] of list.entries()) {
    const got = await fetchAttachment(a);
    if (typeof got === 'string') {
      skipped.push(got);
      continue;
    }
    await mkdir(dir, { recursive: true });
    const path = join(dir, safeName(a.name, i));
    await writeFile(path, got);
    const isImage = a.kind === 'image' && IMAGE_TYPES.has(a.mimeType ?? '');
    if (isImage && vision) images.push(`data:${a.mimeType};base64,${got.toString('base64')}`);
    else lines.push(isImage ? attachedImageLine(path) : attachedFileLine(path));
  }
  const text = [msg.text.trim(), ...lines].filter((s) => s !== '').join('\n');
  const messages: OmniMessage[] = [];
  if (text !== '') messages.push(b.userText(text));
  for (const url of images) messages.push(b.imageUrl(url));
  return { messages, skipped };
}
