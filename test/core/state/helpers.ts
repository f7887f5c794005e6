/**
 * Shared test helpers for the state layer: temporary homes (removed after each test file), a copy of the
 * hand-written PenguinHarness fixture home, a small builtin tool list and tool_call builders.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as b from '../../../src/core/omnimessage/builders';
import type { ToolCallMessage, ToolDefinitionConfig } from '../../../src/core/interfaces';

export const FIXTURE_HOME = resolve(__dirname, '../../fixtures/penguin-home');
export const FIXTURE_AGENT_STATE = join(FIXTURE_HOME, 'default_project/agents/default_agent/agent_state');

const dirs: string[] = [];

export async function tempDir(prefix = 'state-'): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), `penguin-${prefix}`));
  dirs.push(d);
  return d;
}

/** A writable copy of the fixture home. */
export async function fixtureHome(): Promise<string> {
  const d = await tempDir('fixture-');
  await cp(FIXTURE_HOME, d, { recursive: true });
  return d;
}

export async function cleanupTempDirs(): Promise<void> {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
}

export const TEST_TOOLS: ToolDefinitionConfig[] = [
  {
    name: 'read_file',
    description: 'Read a file.',
    parameters: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
    permission: 'r',
    timeoutMs: 30000,
    maxOutputLength: 64000,
  },
  {
    name: 'exec_command',
    description: 'Run a command.',
    parameters: { type: 'object', properties: { description: { type: 'string' }, cmd: { type: 'string' } }, required: ['description', 'cmd'] },
    permission: 'rw',
    call_description: true,
    timeoutMs: 120000,
    maxOutputLength: 16000,
  },
];

export function call(name: string, args: unknown, id = 'call_1'): ToolCallMessage {
  return b.toolCall({ name, arguments: typeof args === 'string' ? args : JSON.stringify(args), tool_call_id: id }) as ToolCallMessage;
}

export const exec = (cmd: string) => call('exec_command', { description: 'run', cmd });
export const input = (chars: string) => call('input_command', { description: 'type', process_id: 'proc-12345678', chars });
