/**
 * HTTP plumbing of the fake Slack: reads a Web API call's arguments from the query string and from an
 * x-www-form-urlencoded, JSON or multipart body (as Slack accepts all three), finds the token
 * (`Authorization: Bearer` wins over a `token` argument), and writes replies. Form values stay strings
 * here; `args` helpers decode them as Slack does, including JSON-encoded fields such as `blocks`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, sendRaw } from './http-body';
import { boundaryOf, parseMultipart, type UploadedFile } from './multipart-form';
import { SlackApiError, slackErrors } from './slack-errors';

export interface CallInput {
  params: Record<string, unknown>;
  files: Map<string, UploadedFile>;
  raw: Buffer;
  contentType: string;
}

/** Oversized bodies are cut off (the connection dropped) rather than answered. */
const BODY_LIMIT = { maxBytes: 60 * 1024 * 1024, hangUp: true };

/** Any body Slack's endpoints take (Web API calls, uploads, response_url posts), under the one cap. */
export function readSlackBody(req: IncomingMessage): Promise<Buffer> {
  return readBody(req, BODY_LIMIT);
}

/** Throws `invalid_form_data` / `invalid_arguments` for bodies Slack could not read. */
export async function readCallInput(req: IncomingMessage, url: URL): Promise<CallInput> {
  const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
  const files = new Map<string, UploadedFile>();
  const contentType = (req.headers['content-type'] ?? '').toLowerCase();
  const raw = req.method === 'GET' || req.method === 'HEAD' ? Buffer.alloc(0) : await readSlackBody(req);
  if (raw.length === 0) return { params, files, raw, contentType };
  if (contentType.startsWith('application/json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      throw slackErrors.invalidArguments('invalid JSON body');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw slackErrors.invalidArguments('JSON body must be an object');
    Object.assign(params, parsed);
  } else if (contentType.startsWith('multipart/form-data')) {
    const boundary = boundaryOf(req.headers['content-type'] ?? '');
    if (!boundary) throw new SlackApiError('invalid_form_data');
    try {
      const parsed = parseMultipart(raw, boundary);
      Object.assign(params, parsed.fields);
      for (const [k, v] of parsed.files) files.set(k, v);
    } catch {
      throw new SlackApiError('invalid_form_data');
    }
  } else {
    Object.assign(params, Object.fromEntries(new URLSearchParams(raw.toString('utf8'))));
  }
  return { params, files, raw, contentType };
}

export function bearerOf(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  return m ? m[1].trim() : undefined;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendRaw(res, status, JSON.stringify(body), 'application/json; charset=utf-8', headers);
}

// ---- argument decoding (form fields arrive as strings; JSON bodies keep their types) -------------

export function optString(params: Record<string, unknown>, key: string): string | undefined {
  const v = params[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw slackErrors.invalidArguments(`${key} must be a string`);
}

export function reqString(params: Record<string, unknown>, key: string): string {
  const v = optString(params, key);
  if (v === undefined || v === '') throw slackErrors.invalidArguments(`missing required field: ${key}`);
  return v;
}

export function optBool(params: Record<string, unknown>, key: string): boolean | undefined {
  const v = params[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === '1' || v === 1) return true;
  if (v === 'false' || v === '0' || v === 0) return false;
  throw slackErrors.invalidArguments(`${key} must be a boolean`);
}

export function optNumber(params: Record<string, unknown>, key: string): number | undefined {
  const v = params[key];
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(n)) throw slackErrors.invalidArguments(`${key} must be a number`);
  return n;
}

/** A field Slack takes as JSON: an object/array in a JSON body, or a JSON-encoded string in a form. */
export function optJson(params: Record<string, unknown>, key: string, onBad: () => Error): unknown {
  const v = params[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    throw onBad();
  }
}
