/**
 * `write_file` (engine.md §4.4): write a whole text file atomically, creating missing parent
 * directories; reports `Created` or `Overwrote` with a unified diff against the previous content.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import type { ToolDefinitionConfig, ToolResult } from '../../interfaces';
import { atomicWrite, looksBinary, refusalFor, statOrNull } from './file-io';
import { resolvePath, type ValidatedTool } from './tool-kit';
import { unifiedDiff } from './unified-diff';

const schema = z.strictObject({ file_path: z.string().min(1), content: z.string() });
type Args = z.infer<typeof schema>;

export function writeFileTool(definition: ToolDefinitionConfig): ValidatedTool<Args> {
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
      if (stat && !stat.isFile()) {
        yield `Not a regular file: ${file}`;
        return { stop_reason: 'failed' };
      }
      let before = '';
      let beforeBinary = false;
      if (stat) {
        const raw = await fs.readFile(file);
        beforeBinary = looksBinary(raw);
        before = beforeBinary ? '' : raw.toString('utf8');
      }
      await fs.mkdir(path.dirname(file), { recursive: true });
      await atomicWrite(file, args.content);
      const bytes = Buffer.byteLength(args.content);
      if (!stat) {
        const diff = unifiedDiff('', args.content, '/dev/null', file);
        yield `Created ${file} (${bytes} bytes)${diff ? `\n${diff}` : ''}\n`;
        return {};
      }
      const diff = beforeBinary ? '(the previous content was binary; no diff)' : unifiedDiff(before, args.content, file, file) || '(content unchanged)';
      yield `Overwrote ${file} (${bytes} bytes)\n${diff}\n`;
      return {};
    },
  };
}
