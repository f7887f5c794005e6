/**
 * The built-in tool implementations by name (engine.md §4.3). A definition whose name is not here has
 * no implementation and is skipped at assembly.
 */
import { describeImageTool } from './describe-image';
import { editFileTool } from './edit-file';
import { execCommandTool } from './exec-command';
import { inputCommandTool } from './input-command';
import { inputSubagentTool } from './input-subagent';
import { killCommandTool } from './kill-command';
import { killSubagentTool } from './kill-subagent';
import { readFileTool } from './read-file';
import { readImageTool } from './read-image';
import { runSubagentTool } from './run-subagent';
import { eraseArgs, type ToolFactory } from './tool-kit';
import { writeFileTool } from './write-file';

export const BUILTIN_TOOL_FACTORIES: Readonly<Record<string, ToolFactory>> = {
  read_file: eraseArgs(readFileTool),
  edit_file: eraseArgs(editFileTool),
  write_file: eraseArgs(writeFileTool),
  exec_command: eraseArgs(execCommandTool),
  input_command: eraseArgs(inputCommandTool),
  kill_command: eraseArgs(killCommandTool),
  run_subagent: eraseArgs(runSubagentTool),
  input_subagent: eraseArgs(inputSubagentTool),
  kill_subagent: eraseArgs(killSubagentTool),
  read_image: eraseArgs(readImageTool),
  describe_image: eraseArgs(describeImageTool),
};

export type { ToolDeps, ValidatedTool } from './tool-kit';
