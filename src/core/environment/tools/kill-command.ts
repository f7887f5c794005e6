/**
 * `kill_command` (engine.md §4.4): SIGTERM to a managed command's process group, SIGKILL after 1000 ms if
 * anything is left; returns the output no call has delivered yet and forgets the command (no report).
 */
import * as z from 'zod';
import type { ToolDefinitionConfig, ToolResult } from '../../interfaces';
import { exitNote } from './command-session';
import { unknownProcess } from './input-command';
import { descriptionArg, type ToolDeps, type ValidatedTool } from './tool-kit';

const schema = z.strictObject({ description: descriptionArg, process_id: z.string().min(1) });
type Args = z.infer<typeof schema>;

export function killCommandTool(definition: ToolDefinitionConfig, deps: ToolDeps): ValidatedTool<Args> {
  return {
    definition,
    schema,
    async *run(args): AsyncGenerator<string, ToolResult> {
      const before = deps.commands.get(args.process_id);
      if (!before) {
        const { text, ...result } = unknownProcess(args.process_id, deps.commands);
        yield text;
        return result;
      }
      const wasRunning = before.running;
      const session = await deps.commands.kill(args.process_id);
      if (!session) return {};
      const output = session.takeUnread();
      if (output) yield output;
      const facts = exitNote(session.exit ?? { code: null, signal: null }, true);
      return { note: wasRunning ? `[killed process ${session.id}] ${facts}` : `[process ${session.id} had already exited] ${facts}` };
    },
  };
}
