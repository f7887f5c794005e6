/**
 * Button payload codec. Every payload fits the smallest platform limit (Telegram callback_data, 64 bytes):
 * `a:<approvalId>:<allow|deny|session>` for approval cards, `s:<taskId>` for Stop, `c:<continuationId>` for
 * Continue. Ids are short tokens the gateway resolves in its store. Encoding validates; decoding is
 * untrusted input (anyone can craft a callback) and goes through zod, returning a named error.
 */
import * as z from 'zod';
import { MIN_BUTTON_PAYLOAD_BYTES } from './limits';

export const ACTION_ID_PATTERN = /^[A-Za-z0-9_.-]{1,48}$/;
export const APPROVAL_VERBS = ['allow', 'deny', 'session'] as const;
export type ApprovalVerb = (typeof APPROVAL_VERBS)[number];

export type ActionPayload =
  | { kind: 'approval'; approvalId: string; verb: ApprovalVerb }
  | { kind: 'stop'; taskId: string }
  | { kind: 'continue'; continuationId: string };

const actionId = (what: string) => z.string().regex(ACTION_ID_PATTERN, `${what} must be 1–48 characters of [A-Za-z0-9_.-]`);

export const actionPayloadSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('approval'), approvalId: actionId('approval id'), verb: z.enum(APPROVAL_VERBS, { error: `verb must be one of ${APPROVAL_VERBS.join(', ')}` }) }),
  z.object({ kind: z.literal('stop'), taskId: actionId('task id') }),
  z.object({ kind: z.literal('continue'), continuationId: actionId('continuation id') }),
]);

function issuesText(e: z.ZodError): string {
  return e.issues.map((i) => `${i.path.join('.') || 'payload'}: ${i.message}`).join('; ');
}

/** Encode an action; throws when it is malformed or would not fit `maxBytes` (default: the smallest platform limit). */
export function encodeActionPayload(action: ActionPayload, maxBytes = MIN_BUTTON_PAYLOAD_BYTES): string {
  const r = actionPayloadSchema.safeParse(action);
  if (!r.success) throw new Error(`invalid action payload: ${issuesText(r.error)}`);
  const a = r.data;
  const s = a.kind === 'approval' ? `a:${a.approvalId}:${a.verb}` : a.kind === 'stop' ? `s:${a.taskId}` : `c:${a.continuationId}`;
  const bytes = Buffer.byteLength(s, 'utf8');
  if (bytes > maxBytes) throw new Error(`action payload is ${bytes} bytes, the limit is ${maxBytes}`);
  return s;
}

export type DecodedAction = { ok: true; action: ActionPayload } | { ok: false; error: string };

/** Decode a payload a platform delivered. Never throws. */
export function decodeActionPayload(payload: unknown): DecodedAction {
  if (typeof payload !== 'string') return { ok: false, error: `action payload: expected a string, found ${typeof payload}` };
  if (Buffer.byteLength(payload, 'utf8') > MIN_BUTTON_PAYLOAD_BYTES) return { ok: false, error: `action payload: longer than ${MIN_BUTTON_PAYLOAD_BYTES} bytes` };
  const parts = payload.split(':');
  let candidate: unknown;
  switch (parts[0]) {
    case 'a':
      if (parts.length !== 3) return { ok: false, error: 'action payload: approval payloads are a:<approvalId>:<verb>' };
      candidate = { kind: 'approval', approvalId: parts[1], verb: parts[2] };
      break;
    case 's':
      if (parts.length !== 2) return { ok: false, error: 'action payload: stop payloads are s:<taskId>' };
      candidate = { kind: 'stop', taskId: parts[1] };
      break;
    case 'c':
      if (parts.length !== 2) return { ok: false, error: 'action payload: continue payloads are c:<continuationId>' };
      candidate = { kind: 'continue', continuationId: parts[1] };
      break;
    default:
      return { ok: false, error: `action payload: unknown prefix ${JSON.stringify(parts[0])} (expected a, s or c)` };
  }
  const r = actionPayloadSchema.safeParse(candidate);
  return r.success ? { ok: true, action: r.data } : { ok: false, error: `action payload: ${issuesText(r.error)}` };
}
