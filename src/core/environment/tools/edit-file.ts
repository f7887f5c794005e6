/**
 * `edit_file` (engine.md §4.4): replace an exact, unique `old_string` (or every occurrence with
 * `replace_all`) in an existing text file, written atomically; reports `Replaced N occurrence(s)` and a
 * unified diff. A file with CRLF line endings is matched and written back in CRLF even when the model
 * sends plain newlines.
 */
import { promises as fs } from 'node:fs';
import * as z from 'zod';
import type { ToolDefinitionConfig, ToolResult } from '../../interfaces';
import { atomicWrite, looksBinary, refusalFor, statOrNull } from './file-io';
import { resolvePath, type ValidatedTool } from './tool-kit';
import { unifiedDiff } from './unified-diff';

const schema = z.strictObject({
  file_path: z.string().min(1),
  old_string: z.string(),
  new_string: z.string(),
  replace_all: z.boolean().optional(),
});
type Args = z.infer<typeof schema>;

function countOccurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** Every line break is CRLF (and there is at least one). */
const isPureCrlf = (text: string) => text.includes('\r\n') && !/(^|[^\r])\n/.test(text);

export function editFileTool(definition: ToolDefinitionConfig): ValidatedTool<Args> {
  return {
    definition,
    schema,
    async *run(args, ctx): AsyncGenerator<string, ToolResult> {
      const fail = (text: string) => ({ text, result: { stop_reason: 'failed' as const } });
      const file = resolvePath(ctx.workspaceDir, args.file_path, ctx.env);
      const check = async () => {
        const refused = await refusalFor(file, ctx.reach);
        if (refused) return fail(refused);
        if (args.old_string === '') return fail('old_string is empty; to create or overwrite a whole file use write_file.');
        if (args.old_string === args.new_string) return fail('old_string and new_string are identical; nothing to change.');
        const stat = await statOrNull(file);
        if (!stat) return fail(`File not found: ${file} (edit_file changes existing files; create new ones with write_file).`);
        if (!stat.isFile()) return fail(`Not a regular file: ${file}`);
        return null;
      };
      const problem = await check();
      if (problem) {
        yield problem.text;
        return problem.result;
      }
      const raw = await fs.readFile(file);
      if (looksBinary(raw)) {
        yield `Refused: ${file} looks like a binary file (it contains NUL bytes).`;
        return { stop_reason: 'failed' };
      }
      const original = raw.toString('utf8');
      const crlf = isPureCrlf(original);
      const text = crlf ? original.replace(/\r\n/g, '\n') : original;
      const oldS = crlf ? args.old_string.replace(/\r\n/g, '\n') : args.old_string;
      const newS = crlf ? args.new_string.replace(/\r\n/g, '\n') : args.new_string;
      const count = countOccurrences(text, oldS);
      if (count === 0) {
        yield `old_string was not found in ${file}. It must match the file exactly, including whitespace and indentation; read the file again and copy the text.`;
        return { stop_reason: 'failed' };
      }
      if (count > 1 && !args.replace_all) {
        yield `old_string occurs ${count} times in ${file}. Include more surrounding lines to make it unique, or set replace_all to true to change every occurrence.`;
        return { stop_reason: 'failed' };
      }
      let updated: string;
      if (args.replace_all) {
        updated = text.split(oldS).join(newS);
      } else {
        const at = text.indexOf(oldS);
        updated = text.slice(0, at) + newS + text.slice(at + oldS.length);
      }
      await atomicWrite(file, crlf ? updated.replace(/\n/g, '\r\n') : updated);
      const replaced = args.replace_all ? count : 1;
      const diff = unifiedDiff(text, updated, file, file);
      yield `Replaced ${replaced} occurrence(s) in ${file}${diff ? `\n${diff}` : ''}\n`;
      return {};
    },
  };
}
