/**
 * `exec_command` (engine.md §4.4): run `<shell> -lc <cmd>` in `workdir` (relative to the Workspace) and
 * stream its output for the foreground window (`yield_time_ms`, clamped to [250, timeout − 1000]).
 * Exit in the window ⇒ completed (0) or failed with the exit facts; still running ⇒ it stays managed and
 * the note gives its `process_id`; `run_in_background` ⇒ the id at once and a completion report later.
 * An abort in the window terminates the whole process group.
 */
import { promises as fs } from 'node:fs';
import * as z from 'zod';
import type { ToolDefinitionConfig, ToolResult } from '../../interfaces';
import { DEFAULT_TOOL_TIMEOUT_MS, EXEC_YIELD_MS, KILL_GRACE_MS, clampYield } from '../limits';
import { forbiddenPathMessage } from '../confinement';
import { exitNote, exitSucceeded } from './command-session';
import { drainAfterExit, runningNote, streamWindow } from './command-window';
import { definitionTimeout, descriptionArg, resolvePath, type ToolDeps, type ValidatedTool } from './tool-kit';

const schema = z.strictObject({
  description: descriptionArg,
  cmd: z.string().min(1),
  workdir: z.string().optional(),
  yield_time_ms: z.number().int().optional(),
  run_in_background: z.boolean().optional(),
});
type Args = z.infer<typeof schema>;

export function execCommandTool(definition: ToolDefinitionConfig, deps: ToolDeps): ValidatedTool<Args> {
  const timeoutMs = definitionTimeout(definition, DEFAULT_TOOL_TIMEOUT_MS);
  return {
    definition,
    schema,
    async *run(args, ctx): AsyncGenerator<string, ToolResult> {
      const cwd = resolvePath(ctx.workspaceDir, args.workdir ?? '.', ctx.env);
      if ((await ctx.reach(cwd)) === 'forbidden') return { stop_reason: 'failed', note: `[spawn error: ${forbiddenPathMessage(cwd)}]` };
      const stat = await fs.stat(cwd).catch(() => null);
      if (!stat?.isDirectory()) return { stop_reason: 'failed', note: `[spawn error: workdir is not a directory: ${cwd}]` };
      // A HOME inside the workspace (the allowlist env policy) exists before the shell reads its profile.
      if (ctx.env.HOME) await fs.mkdir(ctx.env.HOME, { recursive: true }).catch(() => undefined);
      const session = deps.commands.start({ cmd: args.cmd, cwd, env: ctx.env, background: args.run_in_background === true });
      if (args.run_in_background) {
        return { note: `[process started in background with process_id ${session.id}; its completion will be reported]` };
      }
      const release = await session.acquire();
      try {
        const windowMs = clampYield(args.yield_time_ms ?? EXEC_YIELD_MS, timeoutMs);
        const end = yield* streamWindow(session, windowMs, ctx.signal);
        if (end === 'window') return { note: runningNote(session.id) };
        if (end === 'aborted') {
          deps.commands.remove(session.id);
          session.killed = true;
          await session.terminate(KILL_GRACE_MS);
          const rest = await drainAfterExit(session);
          if (rest) yield rest;
          return { note: exitNote(session.exit ?? { code: null, signal: null }) };
        }
        deps.commands.remove(session.id);
        const exit = session.exit ?? (await session.finished);
        return exitSucceeded(exit) ? {} : { stop_reason: 'failed', note: exitNote(exit) };
      } finally {
        release?.();
      }
    },
  };
}
