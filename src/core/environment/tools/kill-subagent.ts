/**
 * `kill_subagent` (engine.md §4.4): abort a managed subagent's round (its pending approvals are denied by
 * the child), dispose and forget it; returns the text no call has delivered yet. Kills send no report.
 */
import * as z from 'zod';
import type { ToolDefinitionConfig, ToolResult } from '../../interfaces';
import { unknownSubagent } from './input-subagent';
import { descriptionArg, type ToolDeps, type ValidatedTool } from './tool-kit';

const schema = z.strictObject({ description: descriptionArg, subagent_id: z.string().min(1) });
type Args = z.infer<typeof schema>;

export function killSubagentTool(definition: ToolDefinitionConfig, deps: ToolDeps): ValidatedTool<Args> {
  return {
    definition,
    schema,
    async *run(args, ctx): AsyncGenerator<string, ToolResult> {
      const before = deps.subagents.get(args.subagent_id);
      if (!before) {
        yield unknownSubagent(args.subagent_id, deps.subagents);
        return { stop_reason: 'failed' };
      }
      const wasRunning = before.running;
      const entry = await deps.subagents.kill(args.subagent_id);
      if (!entry) return {};
      for (const m of entry.takeMessages()) ctx.forward(m);
      const text = entry.takeText();
      if (text) yield text;
      return { note: wasRunning ? `[killed subagent ${entry.id}]` : `[removed idle subagent ${entry.id}]` };
    },
  };
}
