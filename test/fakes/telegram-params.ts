/**
 * Parameter schemas for fake Bot API methods (zod). Query-string and form values arrive as strings, so
 * numbers, booleans and JSON objects are coerced the way the real server accepts them. A failed parse
 * becomes a 400 naming the parameter: "<name> is empty" when missing, "invalid <name>: …" otherwise.
 */
import * as z from 'zod';
import { tgErrors } from './telegram-errors';

const toNumber = (v: unknown): unknown => (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : v);
const toJson = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
};

export const int = z.preprocess(toNumber, z.number().int());
export const bool = z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean());
export const str = z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string());
export const jsonOf = <T extends z.ZodType>(schema: T) => z.preprocess(toJson, schema);
export const anyJson = z.preprocess(toJson, z.unknown());
export const jsonArray = jsonOf(z.array(z.unknown()));
/** A numeric chat id, or "@username" for public chats. */
export const chatId = z.preprocess(
  (v) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v),
  z.union([z.number().int(), z.string().regex(/^@\w+$/)]),
);

const EMPTY: Record<string, string> = {
  chat_id: 'chat_id is empty',
  text: 'message text is empty',
  message_id: 'message identifier is not specified',
  callback_query_id: 'query_id is empty',
  file_id: 'file_id is empty',
};

/** Parses `params` with `schema`; unknown fields are ignored, as the real API ignores them. */
export function parseParams<S extends z.ZodType>(schema: S, params: Record<string, unknown>): z.infer<S> {
  const r = schema.safeParse(params);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const name = String(issue.path[0] ?? 'parameters');
  if (params[name] === undefined || params[name] === '') throw tgErrors.badRequest(EMPTY[name] ?? `parameter "${name}" is required`);
  throw tgErrors.badRequest(`invalid ${name}: ${issue.message}`);
}
