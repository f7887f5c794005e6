/**
 * HTTP plumbing of the fake Bot API: reads a call's parameters from the query string and from a JSON,
 * x-www-form-urlencoded or multipart body (body wins over query), writes JSON replies, and watches for clients that hang up.
 * Form values stay strings here; the parameter schemas coerce them as the real server does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, sendRaw } from './http-body';
import { boundaryOf, parseMultipart, type UploadedFile } from './multipart-form';
import { tgErrors } from './telegram-errors';
import type { CallClient } from './telegram-polling';

export interface CallInput {
  params: Record<string, unknown>;
  files: Map<string, UploadedFile>;
}

/** Oversized bodies are cut off (the connection dropped), as a proxy in front of the Bot API would. */
const BODY_LIMIT = { maxBytes: 60 * 1024 * 1024, hangUp: true };

export async function readCallInput(req: IncomingMessage, url: URL): Promise<CallInput> {
  const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
  const files = new Map<string, UploadedFile>();
  if (req.method === 'GET' || req.method === 'HEAD') return { params, files };
  const body = await readBody(req, BODY_LIMIT);
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (body.length === 0) return { params, files };
  if (type.startsWith('application/json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw tgErrors.badRequest("can't parse JSON object");
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw tgErrors.badRequest("can't parse JSON object");
    }
    Object.assign(params, parsed);
  } else if (type.startsWith('application/x-www-form-urlencoded')) {
    Object.assign(params, Object.fromEntries(new URLSearchParams(body.toString('utf8'))));
  } else if (type.startsWith('multipart/form-data')) {
    const boundary = boundaryOf(req.headers['content-type'] ?? '');
    if (!boundary) throw tgErrors.badRequest('multipart body has no boundary');
    let parsed;
    try {
      parsed = parseMultipart(body, boundary);
    } catch (err) {
      throw tgErrors.badRequest(`can't parse multipart body: ${(err as Error).message}`);
    }
    Object.assign(params, parsed.fields);
    for (const [k, v] of parsed.files) files.set(k, v);
  }
  return { params, files };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendRaw(res, status, JSON.stringify(body), 'application/json');
}

/** A call's chat_id as a number when numeric, else the "@username" string. */
export function chatIdOf(v: unknown): number | string | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return /^-?\d+$/.test(v) ? Number(v) : v;
  return undefined;
}

/** Watches a response: `gone` once the client hangs up before the answer is written. */
export function clientOf(res: ServerResponse): CallClient {
  let gone = false;
  const callbacks: Array<() => void> = [];
  res.on('close', () => {
    if (res.writableFinished) return;
    gone = true;
    for (const cb of callbacks.splice(0)) cb();
  });
  return {
    get gone() {
      return gone;
    },
    onGone(cb) {
      if (gone) cb();
      else callbacks.push(cb);
    },
  };
}
