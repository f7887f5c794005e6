/**
 * Test helpers for the Environment: temp workspaces (removed after each test file), a fast host env
 * (a temp HOME so `bash -l` reads no user profile), tool-call execution that checks the streaming
 * discipline and the single complete output, and process liveness that treats zombies as dead.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as b from '../../../src/core/omnimessage/builders';
import type { MessageOf, OmniMessage } from '../../../src/core/omnimessage/types';
import type {
  CommandSandbox, EnvironmentInterface, EnvironmentServices, MCPServerConfig, ToolConfinement, ToolDefinitionConfig, ToolExecutionRequest,
} from '../../../src/core/interfaces';
import type { SubprocessEnvPolicy } from '../../../src/core/environment/subprocess-env';
import { Environment } from '../../../src/core/environment';
import { DEFAULT_BUILTIN_TOOLS } from '../../../src/core/environment/default-tools';
import { assertStreamDiscipline } from '../../helpers/stream-discipline';

const made: string[] = [];

export function tempDir(prefix = 'penv-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function fastHostEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, HOME: tempDir('penv-home-'), ...extra };
}

let seq = 0;
export function toolCallMsg(name: string, args: unknown, id = `call_${++seq}`) {
  return b.toolCall({ name, arguments: typeof args === 'string' ? args : JSON.stringify(args), tool_call_id: id });
}

export interface CallResult {
  msgs: OmniMessage[];
  out: MessageOf<'tool_call_output'>['payload'];
  forwarded: OmniMessage[];
}

export async function collect(gen: AsyncGenerator<OmniMessage>): Promise<OmniMessage[]> {
  const msgs: OmniMessage[] = [];
  for await (const m of gen) msgs.push(m);
  return msgs;
}

/** Run one tool call to the end; asserts discipline and exactly one complete output. */
export async function call(
  env: EnvironmentInterface,
  name: string,
  args: unknown,
  opts: Omit<ToolExecutionRequest, 'toolCall'> & { skipDiscipline?: boolean } = {},
): Promise<CallResult> {
  const { skipDiscipline, ...request } = opts;
  const msgs = await collect(env.executeTool({ toolCall: toolCallMsg(name, args), ...request }));
  // A child's segment may span two calls (window ended mid-segment); such tests check the joined stream.
  assertStreamDiscipline(skipDiscipline ? msgs.filter((m) => m.origin === undefined) : msgs);
  const outs = msgs.filter((m) => m.origin === undefined && m.type === 'model_msg' && m.payload.type === 'tool_call_output');
  expect(outs).toHaveLength(1);
  expect(msgs[0].payload).toMatchObject({ type: 'partial_tool_call_output', event_type: 'start' });
  const out = outs[0].payload as MessageOf<'tool_call_output'>['payload'];
  expect(msgs[msgs.length - 1]).toBe(outs[0]);
  return { msgs, out, forwarded: msgs.filter((m) => m.origin !== undefined) };
}

/** True while the process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return existsSync(`/proc/${pid}`);
  }
}

/** Poll `cond` every 50 ms, up to `ms`. */
export async function waitFor(cond: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return cond();
}

/** An Environment over a fresh temp Workspace and scratchpad with the default tools (or `tools`). */
export function makeEnv(
  o: {
    tools?: ToolDefinitionConfig[];
    mcpServers?: MCPServerConfig[];
    vault?: Record<string, string>;
    vision?: boolean;
    services?: EnvironmentServices;
    hostEnv?: NodeJS.ProcessEnv;
    warn?: (m: string) => void;
    scratchpad?: boolean | string;
    workspace?: string;
    confinement?: (dirs: { workspace: string; scratchpad?: string }) => ToolConfinement;
    sandbox?: (dirs: { workspace: string; scratchpad?: string }) => CommandSandbox;
    envPolicy?: SubprocessEnvPolicy;
  } = {},
) {
  const workspace = o.workspace ?? tempDir('penv-ws-');
  const scratchpad = o.scratchpad === false ? undefined : typeof o.scratchpad === 'string' ? o.scratchpad : tempDir('penv-scratch-');
  const dirs = { workspace, scratchpad };
  const env = new Environment(
    {
      workspaceDir: workspace,
      toolConfig: { customTools: o.tools ?? DEFAULT_BUILTIN_TOOLS, mcpServers: o.mcpServers ?? [] },
      sessionScratchpadDir: scratchpad,
      vault: o.vault,
      vision: o.vision,
      services: o.services,
      ...(o.confinement ? { confinement: o.confinement(dirs) } : {}),
      ...(o.sandbox ? { sandbox: o.sandbox(dirs) } : {}),
    },
    { hostEnv: o.hostEnv ?? fastHostEnv(), warn: o.warn ?? (() => undefined), ...(o.envPolicy ? { envPolicy: o.envPolicy } : {}) },
  );
  return { env, workspace, scratchpad };
}
