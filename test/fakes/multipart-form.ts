/**
 * A small multipart/form-data parser for the fake servers' uploads: text parts become string fields,
 * parts with a filename become uploaded files keyed by part name (grammY's `attach://<name>`, Discord's
 * `files[n]`). Header names are case-insensitive and parameters may be quoted or
 * bare, as the SDKs write them.
 */

export interface UploadedFile {
  field: string;
  fileName: string;
  contentType: string;
  data: Buffer;
}

export interface MultipartBody {
  fields: Record<string, string>;
  files: Map<string, UploadedFile>;
}

export function boundaryOf(contentType: string): string | undefined {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : undefined;
}

function param(disposition: string, name: string): string | undefined {
  const re = new RegExp(`(?:^|;)\\s*${name}=(?:"([^"]*)"|([^;]*))`, 'i');
  const m = re.exec(disposition);
  if (!m) return undefined;
  return m[1] ?? m[2].trim();
}

export function parseMultipart(body: Buffer, boundary: string): MultipartBody {
  const fields: Record<string, string> = {};
  const files = new Map<string, UploadedFile>();
  const delimiter = Buffer.from(`--${boundary}`);
  let pos = body.indexOf(delimiter);
  if (pos < 0) throw new Error('multipart body has no boundary');
  for (;;) {
    pos += delimiter.length;
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) break;
    if (body[pos] === 0x0d && body[pos + 1] === 0x0a) pos += 2;
    const next = body.indexOf(delimiter, pos);
    if (next < 0) throw new Error('multipart body is truncated');
    let end = next;
    if (body[end - 2] === 0x0d && body[end - 1] === 0x0a) end -= 2;
    const part = body.subarray(pos, end);
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd < 0) throw new Error('multipart part has no header block');
    const headers = new Map<string, string>();
    for (const line of part.subarray(0, headerEnd).toString('utf8').split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const data = part.subarray(headerEnd + 4);
    const disposition = headers.get('content-disposition') ?? '';
    const name = param(disposition, 'name');
    if (name === undefined) throw new Error('multipart part has no name');
    const fileName = param(disposition, 'filename');
    if (fileName !== undefined) {
      files.set(name, {
        field: name,
        fileName,
        contentType: headers.get('content-type') ?? 'application/octet-stream',
        data: Buffer.from(data),
      });
    } else {
      fields[name] = data.toString('utf8');
    }
    pos = next;
  }
  return { fields, files };
}
