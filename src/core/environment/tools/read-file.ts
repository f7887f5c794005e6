/**
 * `read_file` (engine.md §4.4): a `cat -n` style window of a text file (`offset` 1-based, `limit` lines,
 * default 2000), lines over 2000 chars cut, binary files and the secret files refused, at most the first
 * 8 MiB scanned; a closing note says where to continue when more lines remain.
 */
import { promises as fs } from 'node:fs';
import * as z from 'zod';
import type { ToolDefinitionConfig, ToolResult } from '../../interfaces';
import { READ_FILE_DEFAULT_LIMIT, READ_FILE_MAX_LINE_CHARS, READ_FILE_SCAN_BYTES } from '../limits';
import { looksBinary, refusalFor, statOrNull } from './file-io';
import { resolvePath, type ValidatedTool } from './tool-kit';

const schema = z.strictObject({
  file_path: z.string().min(1),
  offset: z.number().int().min(1).optional(),
  limit: z.number().int().min(1).optional(),
});
type Args = z.infer<typeof schema>;

async function readHead(file: string, maxBytes: number): Promise<Buffer> {
  const handle = await fs.open(file, 'r');
  try {
    const buf = Buffer.alloc(maxBytes);
    let filled = 0;
    while (filled < maxBytes) {
      const { bytesRead } = await handle.read(buf, filled, maxBytes - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buf.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

function formatLine(n: number, line: string): string {
  const cut = line.length > READ_FILE_MAX_LINE_CHARS
    ? `${line.slice(0, READ_FILE_MAX_LINE_CHARS)} [... line cut: ${line.length} chars]`
    : line;
  return `${String(n).padStart(6)}\t${cut}`;
}

export function readFileTool(definition: ToolDefinitionConfig): ValidatedTool<Args> {
  return {
    definition,
    schema,
    async *run(args, ctx): AsyncGenerator<string, ToolResult> {
      const file = resolvePath(ctx.workspaceDir, args.file_path, ctx.env);
      const refused = await refusalFor(file, ctx.reach);
      if (refused) {
        yield refused;
        return { stop_reason: 'failed' };
      }
      const stat = await statOrNull(file);
      if (!stat) {
        yield `File not found: ${file}`;
        return { stop_reason: 'failed' };
      }
      if (!stat.isFile()) {
        yield `Not a regular file: ${file}${stat.isDirectory() ? ' (a directory; list it with exec_command)' : ''}`;
        return { stop_reason: 'failed' };
      }
      const scanned = await readHead(file, Math.min(stat.size, READ_FILE_SCAN_BYTES));
      if (looksBinary(scanned)) {
        yield `Refused: ${file} looks like a binary file (it contains NUL bytes); read_file shows text files only.`;
        return { stop_reason: 'failed' };
      }
      const partial = stat.size > scanned.length;
      let text = scanned.toString('utf8');
      // A scan that stopped inside the file ends at its last complete line.
      if (partial) text = text.slice(0, text.lastIndexOf('\n') + 1);
      if (text === '' && !partial) return { note: '[empty file]' };
      const lines = text.split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      const total = lines.length;
      const offset = args.offset ?? 1;
      const limit = args.limit ?? READ_FILE_DEFAULT_LIMIT;
      if (offset > total) {
        yield partial
          ? `offset ${offset} is past the first ${total} lines that read_file scans (8 MiB); read further with exec_command (e.g. sed -n).`
          : `offset ${offset} is past the end of ${file} (${total} lines).`;
        return { stop_reason: 'failed' };
      }
      const end = Math.min(total, offset - 1 + limit);
      const body: string[] = [];
      for (let i = offset - 1; i < end; i++) body.push(formatLine(i + 1, lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i]));
      yield body.join('\n') + '\n';
      if (end < total) return { note: `[showing lines ${offset}-${end} of ${partial ? `at least ${total}` : total}; continue with offset=${end + 1}]` };
      if (partial) return { note: `[stopped at line ${end}: the file is larger than the 8 MiB read_file scans; read further with exec_command (e.g. sed -n)]` };
      return {};
    },
  };
}
