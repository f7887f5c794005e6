/**
 * `run_subagent` (engine.md §4.4): start a child Session (same Workspace; agent, model and thinking level
 * overridable) on `prompt`, watch it for the window (`yield_time_ms`, default 300000, clamped), or with
 * `run_in_background` return its id at once and report each finished round later.
 */
import * as z from 'zod';
import { SELECTABLE_THINKING_LEVELS, type ThinkingLevel, type ToolDefinitionConfig, type ToolResult } from '../../interfaces';
import { errorMessage } from '../async-utils';
import { SUBAGENT_PROMPT_YIELD_MS, clampYield } from '../limits';
import { subagentRunningNote, watchSubagent } from './subagent-window';
import { definitionTimeout, descriptionArg, type ToolDeps, type ValidatedTool } from './tool-kit';

const SUBAGENT_TIMEOUT_MS = 600_000;

const schema = z.strictObject({
  description: descriptionArg,
  prompt: z.string().min(1),
  agent_id: z.string().min(1).optional(),
  model_id: z.string().min(1).optional(),
  provider: z.string().min(1).optional(),
  thinking_level: z.enum(SELECTABLE_THINKING_LEVELS as [ThinkingLevel, ...ThinkingLevel[]]).optional(),
  yield_time_ms: z.number().int().optional(),
  run_in_background: z.boolean().optional(),
});
type Args = z.infer<typeof schema>;

export function runSubagentTool(definition: ToolDefinitionConfig, deps: ToolDeps): ValidatedTool<Args> {
  const timeoutMs = definitionTimeout(definition, SUBAGENT_TIMEOUT_MS);
  return {
    definition,
    schema,
    async *run(args, ctx): AsyncGenerator<string, ToolResult> {
      let entry;
      try {
        entry = await deps.subagents.spawn({
          agentId: args.agent_id,
          modelId: args.model_id,
          provider: args.provider,
          thinkingLevel: args.thinking_level,
          label: args.description ?? args.prompt,
          background: args.run_in_background === true,
        });
      } catch (err) {
        yield `Could not start the subagent: ${errorMessage(err)}`;
        return { stop_reason: 'failed' };
      }
      entry.startRound(args.prompt, ctx.approve);
      if (args.run_in_background) {
        return { note: `${subagentRunningNote(entry.id)}\n[running in background: each finished round will be reported]` };
      }
      return yield* watchSubagent(entry, clampYield(args.yield_time_ms ?? SUBAGENT_PROMPT_YIELD_MS, timeoutMs), ctx);
    },
  };
}
