/**
 * Request and reply bodies for the fake servers' HTTP endpoints: `readBody` collects a request body
 * up to a size cap, and `sendRaw` writes a complete reply unless the response is already over (the
 * client hung up or a fault dropped the socket). Parsing and JSON replies stay per platform, because
 * content types and error shapes differ.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface BodyLimit {
  maxBytes: number;
  /** The rejection for an oversized body. Default: Error('request body too large'). */
  tooLarge?: () => Error;
  /** Destroy the request on overflow (no reply possible); otherwise the rest is discarded so the caller can answer. */
  hangUp?: boolean;
}

export function readBody(req: IncomingMessage, limit: BodyLimit): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (c: Buffer) => {
      if (refused) return;
      size += c.length;
      if (size > limit.maxBytes) {
        refused = true;
        chunks.length = 0;
        reject(limit.tooLarge ? limit.tooLarge() : new Error('request body too large'));
        if (limit.hangUp) req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!refused) resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

export function sendRaw(res: ServerResponse, status: number, body: string | Buffer, contentType: string, headers: Record<string, string> = {}): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}
