/**
 * What instances send each other through the mailbox, validated with zod on arrival like any other input:
 * a chat message or button press for the conversation's owner (attachments travel as bytes, since their
 * download links are the receiver's to resolve), the answer to a press, and requests with their responses.
 */
import * as z from 'zod';
import type { ActionAnswer, ActionEvent, ChatUser, InboundAttachment, InboundMessage } from '../../adapters/contract/messages';
import { threadRefSchema } from '../../adapters/contract/thread-ref';

const user = z.object({ id: z.string(), name: z.string().optional(), isBot: z.boolean().optional(), roles: z.array(z.string()).optional(), team: z.string().optional() });
const messageRef = z.object({ thread: threadRefSchema, messageId: z.string() });
const attachment = z.object({
  kind: z.enum(['image', 'file']), name: z.string(), mimeType: z.string().optional(), sizeBytes: z.number().optional(),
  data: z.string().optional(), error: z.string().optional(),
});
const platform = z.enum(['slack', 'discord', 'telegram', 'web']);
const message = z.object({
  platform, thread: threadRefSchema, user, text: z.string(), attachments: z.array(attachment), mentionsBot: z.boolean(), followUp: z.boolean().optional(),
  isDM: z.boolean(), eventId: z.string(), messageId: z.string(), replyTo: messageRef.optional(), sentAt: z.number(),
});
const action = z.object({ platform, thread: threadRefSchema, user, payload: z.string(), message: messageRef, eventId: z.string() });
const answer = z.object({ text: z.string().optional(), alert: z.boolean().optional() });

export const letterSchemas = {
  message: z.object({ message }),
  action: z.object({ action, reply: z.string() }),
  answer: z.object({ reply: z.string(), answer }),
  request: z.object({ reply: z.string(), op: z.string(), args: z.unknown() }),
  response: z.object({ reply: z.string(), ok: z.boolean(), value: z.unknown().optional(), error: z.string().optional() }),
} as const;
export type LetterKind = keyof typeof letterSchemas;
export type LetterBody<K extends LetterKind> = z.infer<(typeof letterSchemas)[K]>;
export type PackedMessage = z.infer<typeof message>;
export type PackedAction = z.infer<typeof action>;

/** A letter's body, or why it is not one (logged by the receiver, never thrown). */
export function readLetter<K extends LetterKind>(kind: K, body: string): { ok: true; value: LetterBody<K> } | { ok: false; error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    return { ok: false, error: 'body is not JSON' };
  }
  const r = letterSchemas[kind].safeParse(raw);
  if (r.success) return { ok: true, value: r.data as LetterBody<K> };
  return { ok: false, error: r.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ') };
}

export const isLetterKind = (k: string): k is LetterKind => Object.hasOwn(letterSchemas, k);

async function packAttachment(a: InboundAttachment): Promise<z.infer<typeof attachment>> {
  const head = { kind: a.kind, name: a.name, ...(a.mimeType ? { mimeType: a.mimeType } : {}), ...(a.sizeBytes !== undefined ? { sizeBytes: a.sizeBytes } : {}) };
  try {
    return { ...head, data: (await a.download()).toString('base64') };
  } catch (err) {
    return { ...head, error: err instanceof Error ? err.message : String(err) };
  }
}

export async function packMessage(m: InboundMessage): Promise<PackedMessage> {
  const { attachments, ...rest } = m;
  return { ...rest, user: { ...m.user }, attachments: await Promise.all(attachments.map(packAttachment)) } as PackedMessage;
}

export function unpackMessage(p: PackedMessage): InboundMessage {
  return {
    ...p,
    user: p.user as ChatUser,
    attachments: p.attachments.map(({ data, error, ...a }) => ({
      ...a,
      download: () => (data !== undefined ? Promise.resolve(Buffer.from(data, 'base64')) : Promise.reject(new Error(error ?? 'the attachment could not be fetched'))),
    })),
  } as InboundMessage;
}

export function packAction(a: ActionEvent): PackedAction {
  return { platform: a.platform, thread: a.thread, user: { ...a.user }, payload: a.payload, message: a.message, eventId: a.eventId } as PackedAction;
}

export function unpackAction(p: PackedAction, answer: (a?: ActionAnswer) => Promise<void>): ActionEvent {
  return { ...p, user: p.user as ChatUser, answer } as ActionEvent;
}
