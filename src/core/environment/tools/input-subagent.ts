/**
 * `input_subagent` (engine.md §4.4): poll a managed subagent (window 10000 ms) or, only while it is idle,
 * give it a new `prompt` (window 300000 ms); delivers what no call has delivered yet, then watches.
 */
import * as z from 'zod';
import type { ToolDefinitionConfig, ToolResult } from '../../interfaces';
import { SUBAGENT_POLL_YIELD_MS, SUBAGENT_PROMPT_YIELD_MS, clampYield } from '../limits';
import type { SubagentManager } from './subagent-manager';
import { watchSubagent } from './subagent-window';
import { definitionTimeout, descriptionArg, type ToolDeps, type ValidatedTool } from './tool-kit';

const SUBAGENT_TIMEOUT_MS = 600_000;

const schema = z.strictObject({
  description: descriptionArg,
  subagent_id: z.string().min(1),
  prompt: z.string().optional(),
  yield_time_ms: z.number().int().optional(),
});
type Args = z.infer<typeof schema>;

export function unknownSubagent(id: string, subagents: SubagentManager): string {
  const known = subagents.ids();
  return `Unknown subagent_id: ${id}. ${known.length ? `Managed subagents: ${known.join(', ')}.` : 'No subagents are running.'}`;
}

export function inputSubagentTool(definition: ToolDefinitionConfig, deps: ToolDeps): ValidatedTool<Args> {
  const timeoutMs = definitionTimeout(definition, SUBAGENT_TIMEOUT_MS);
  return {
    definition,
    schema,
    async *run(args, ctx): AsyncGenerator<string, ToolResult> {
      const entry = deps.subagents.get(args.subagent_id);
      if (!entry) {
        yield unknownSubagent(args.subagent_id, deps.subagents);
        return { stop_reason: 'failed' };
      }
      const prompt = args.prompt ?? '';
      if (prompt.trim() !== '') {
        if (entry.running) {
          yield `Subagent ${entry.id} is still working on its current prompt; poll it (input_subagent without prompt) until it is idle, or stop it with kill_subagent.`;
          return { stop_reason: 'failed' };
        }
        entry.takeOutcome();
        entry.startRound(prompt, ctx.approve);
      }
      const windowMs = clampYield(args.yield_time_ms ?? (prompt.trim() ? SUBAGENT_PROMPT_YIELD_MS : SUBAGENT_POLL_YIELD_MS), timeoutMs);
      return yield* watchSubagent(entry, windowMs, ctx);
    },
  };
}
