/**
 * The 11 default built-in tool definitions (engine.md §4.3, §11): names, the model-facing descriptions,
 * JSON Schemas `{type:"object", properties, required}`, permissions, timeouts and output caps. The state
 * layer passes these as `toolConfig.customTools` unless `tools.builtin` replaces them wholesale.
 */
import type { ToolDefinitionConfig } from '../interfaces';

const description = {
  type: 'string',
  description: 'One short sentence telling the user what this call does and why. Write it first.',
};
const yieldTime = (text: string) => ({ type: 'integer', description: text });
const schema = (properties: Record<string, unknown>, required: string[]) => ({ type: 'object', properties, required });

export const DEFAULT_BUILTIN_TOOLS: ToolDefinitionConfig[] = [
  {
    name: 'read_file',
    description:
      'Read a text file with numbered lines (like `cat -n`). Paths are relative to the workspace unless absolute. ' +
      'Reads up to `limit` lines from line `offset`; very long lines are cut; binary files are refused. ' +
      'When more lines remain, the output says which offset to continue from.',
    parameters: schema(
      {
        file_path: { type: 'string', description: 'Path of the file to read.' },
        offset: { type: 'integer', minimum: 1, description: 'First line to show, 1-based. Default 1.' },
        limit: { type: 'integer', minimum: 1, description: 'Number of lines to show. Default 2000.' },
      },
      ['file_path'],
    ),
    permission: 'r',
    timeoutMs: 30_000,
    maxOutputLength: 64_000,
  },
  {
    name: 'edit_file',
    description:
      'Replace exact text in an existing file. `old_string` must match the file exactly (whitespace included) and be unique ' +
      'unless `replace_all` is true. Read the file first. Returns the number of replacements and a unified diff.',
    parameters: schema(
      {
        file_path: { type: 'string', description: 'Path of the file to change.' },
        old_string: { type: 'string', description: 'The exact text to replace.' },
        new_string: { type: 'string', description: 'The text to put in its place.' },
        replace_all: { type: 'boolean', description: 'Replace every occurrence instead of exactly one. Default false.' },
      },
      ['file_path', 'old_string', 'new_string'],
    ),
    permission: 'rw',
    timeoutMs: 30_000,
    maxOutputLength: 16_000,
  },
  {
    name: 'write_file',
    description:
      'Write a whole file, creating it (and missing parent directories) or replacing its content. ' +
      'Prefer edit_file for small changes to existing files. Returns a unified diff.',
    parameters: schema(
      {
        file_path: { type: 'string', description: 'Path of the file to write.' },
        content: { type: 'string', description: 'The complete new content of the file.' },
      },
      ['file_path', 'content'],
    ),
    permission: 'rw',
    timeoutMs: 30_000,
    maxOutputLength: 16_000,
  },
  {
    name: 'exec_command',
    description:
      'Run a shell command with bash in the workspace (or `workdir`) and return its combined stdout and stderr. ' +
      'Waits up to `yield_time_ms` for it to finish; a command still running then keeps running and gets a process_id ' +
      'for input_command / kill_command. With `run_in_background` it returns at once and its completion is reported later. ' +
      'Commands are non-interactive: no pager, no editor, no terminal.',
    parameters: schema(
      {
        description,
        cmd: { type: 'string', description: 'The shell command line.' },
        workdir: { type: 'string', description: 'Working directory, relative to the workspace. Default: the workspace.' },
        yield_time_ms: yieldTime('How long to wait for the command before returning, in ms. Default 60000.'),
        run_in_background: { type: 'boolean', description: 'Start it and return immediately; a report follows when it ends.' },
      },
      ['description', 'cmd'],
    ),
    permission: 'rw',
    timeoutMs: 120_000,
    maxOutputLength: 16_000,
  },
  {
    name: 'input_command',
    description:
      'Interact with a running command started by exec_command: send `chars` to its stdin (include "\\n" to press Enter; ' +
      'send "\\u0003" alone for Ctrl-C), or leave `chars` empty to wait for new output. Returns the output since the last call, ' +
      'and the exit status once it has ended.',
    parameters: schema(
      {
        description,
        process_id: { type: 'string', description: 'The process_id returned by exec_command.' },
        chars: { type: 'string', description: 'Text to write to stdin. Empty or omitted: only read new output.' },
        yield_time_ms: yieldTime('How long to wait for output, in ms. Default 250 after writing, 120000 when only reading.'),
      },
      ['description', 'process_id'],
    ),
    permission: 'rw',
    timeoutMs: 130_000,
    maxOutputLength: 16_000,
  },
  {
    name: 'kill_command',
    description: 'Stop a running command started by exec_command (SIGTERM, then SIGKILL) and return its unread output.',
    parameters: schema(
      {
        description,
        process_id: { type: 'string', description: 'The process_id returned by exec_command.' },
      },
      ['description', 'process_id'],
    ),
    permission: 'rw',
    timeoutMs: 30_000,
    maxOutputLength: 16_000,
  },
  {
    name: 'run_subagent',
    description:
      'Delegate a self-contained task to a subagent: a separate agent session in the same workspace that starts with no knowledge ' +
      'of this conversation, so the prompt must say everything it needs. Returns its answer, or a subagent_id if it is still ' +
      'working after `yield_time_ms`. With `run_in_background` it returns at once and reports when done.',
    parameters: schema(
      {
        description,
        prompt: { type: 'string', description: 'The complete task for the subagent.' },
        agent_id: { type: 'string', description: 'Run another agent of this project instead of this one.' },
        model_id: { type: 'string', description: 'Use another model of this project (with provider).' },
        provider: { type: 'string', description: 'Provider of model_id.' },
        thinking_level: { type: 'string', enum: ['low', 'medium', 'high', 'xhigh', 'max'], description: 'Reasoning effort for the subagent.' },
        yield_time_ms: yieldTime('How long to wait for its answer, in ms. Default 300000.'),
        run_in_background: { type: 'boolean', description: 'Start it and return immediately; a report follows when it finishes.' },
      },
      ['description', 'prompt'],
    ),
    permission: 'rw',
    timeoutMs: 600_000,
    maxOutputLength: 16_000,
  },
  {
    name: 'input_subagent',
    description:
      'Check on a subagent started by run_subagent, or give an idle subagent a follow-up `prompt`. ' +
      'Returns its output since the last call.',
    parameters: schema(
      {
        description,
        subagent_id: { type: 'string', description: 'The subagent_id returned by run_subagent.' },
        prompt: { type: 'string', description: 'A follow-up task (only while the subagent is idle). Omit to just check on it.' },
        yield_time_ms: yieldTime('How long to wait, in ms. Default 300000 with a prompt, 10000 without.'),
      },
      ['description', 'subagent_id'],
    ),
    permission: 'rw',
    timeoutMs: 600_000,
    maxOutputLength: 16_000,
  },
  {
    name: 'kill_subagent',
    description: 'Stop a subagent and discard it, returning any output not yet delivered.',
    parameters: schema(
      {
        description,
        subagent_id: { type: 'string', description: 'The subagent_id returned by run_subagent.' },
      },
      ['description', 'subagent_id'],
    ),
    permission: 'rw',
    timeoutMs: 30_000,
    maxOutputLength: 16_000,
  },
  {
    name: 'read_image',
    description: 'Look at an image file or image URL (png, jpeg, gif or webp, up to 5 MB). The image is shown to you with the result.',
    parameters: schema({ source: { type: 'string', description: 'Image path (relative to the workspace or absolute) or http(s) URL.' } }, ['source']),
    permission: 'r',
    forModel: 'vision',
    timeoutMs: 60_000,
    maxOutputLength: 16_000,
  },
  {
    name: 'describe_image',
    description:
      'Get a text description of an image file or image URL (png, jpeg, gif or webp, up to 5 MB) from a vision model. ' +
      'Use `prompt` to ask for specific details.',
    parameters: schema(
      {
        source: { type: 'string', description: 'Image path (relative to the workspace or absolute) or http(s) URL.' },
        prompt: { type: 'string', description: 'What to look for or describe. Default: a detailed general description.' },
      },
      ['source'],
    ),
    permission: 'r',
    forModel: 'text-only',
    timeoutMs: 90_000,
    maxOutputLength: 16_000,
  },
];
