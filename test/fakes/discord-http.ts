/**
 * HTTP plumbing of the fake Discord REST API: reads a JSON body, or a multipart body whose
 * `payload_json` part is the JSON and whose `files[n]` parts are uploads (ordered by n), and writes
 * JSON / 204 replies with extra headers. Bodies over the request cap are refused as Discord does (413,
 * code 40005); malformed JSON is 50109.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dcErrors } from './discord-errors';
import { readBody, sendRaw } from './http-body';
import { boundaryOf, parseMultipart, type UploadedFile } from './multipart-form';

export type { UploadedFile };

export interface RequestInput {
  body: unknown;
  /** Uploads in `files[n]` order (other file part names follow, in arrival order). */
  files: UploadedFile[];
  bytes: number;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw dcErrors.invalidJson();
  }
}

export async function readInput(req: IncomingMessage, maxBytes: number): Promise<RequestInput> {
  if (req.method === 'GET' || req.method === 'HEAD') return { body: undefined, files: [], bytes: 0 };
  const raw = await readBody(req, { maxBytes, tooLarge: () => dcErrors.tooLarge() });
  if (raw.length === 0) return { body: undefined, files: [], bytes: 0 };
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('multipart/form-data')) {
    const boundary = boundaryOf(req.headers['content-type'] ?? '');
    if (!boundary) throw dcErrors.invalidForm('_', 'CONTENT_TYPE_INVALID', 'Expected multipart boundary');
    let parsed;
    try {
      parsed = parseMultipart(raw, boundary);
    } catch (err) {
      throw dcErrors.invalidForm('_', 'MULTIPART_INVALID', (err as Error).message);
    }
    const body = parsed.fields.payload_json !== undefined ? parseJson(parsed.fields.payload_json) : { ...parsed.fields };
    const index = (name: string): number => {
      const m = /^files\[(\d+)\]$/.exec(name);
      return m ? Number(m[1]) : Number.MAX_SAFE_INTEGER;
    };
    const files = [...parsed.files.values()].sort((a, b) => index(a.field) - index(b.field));
    return { body, files, bytes: raw.length };
  }
  return { body: parseJson(raw.toString('utf8')), files: [], bytes: raw.length };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.writableEnded || res.destroyed) return;
  if (body === undefined || status === 204) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  sendRaw(res, status, JSON.stringify(body), 'application/json', headers);
}

/** An object body or an empty one; arrays and scalars are a form error. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw dcErrors.invalidForm('_', 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType');
  return body as Record<string, unknown>;
}
