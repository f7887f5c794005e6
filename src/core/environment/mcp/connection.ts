/**
 * Connects one MCP server with the official SDK client (stdio / streamable HTTP / SSE) and lists its
 * tools, within `connectTimeoutMs` and the caller's abort signal; a failure closes whatever was started
 * and rejects with a message that includes the tail of a stdio server's stderr. Stdio servers get the
 * host env (by the Session's env policy) plus their own `env`, never the Vault, and run in `cwd` (default: the Workspace).
 * The SDK is required at the first connection, so a process whose agents name no MCP server never loads it.
 */
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type * as SseModule from '@modelcontextprotocol/sdk/client/sse.js';
import type * as StdioModule from '@modelcontextprotocol/sdk/client/stdio.js';
import type * as HttpModule from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type * as ClientModule from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../async-utils';
import { buildMcpServerEnv, type SubprocessEnvPolicy } from '../subprocess-env';
import type { McpServerSpec } from './config';

const CLIENT_INFO = { name: 'penguin-gateway', version: '0.1.0' };
const STDERR_TAIL_CHARS = 500;
/** setTimeout's ceiling; used when a call has no timeout of its own. */
export const NO_TIMEOUT_MS = 2_147_483_647;

export interface McpConnection {
  client: Client;
  tools: Tool[];
  close(): Promise<void>;
}

export interface ConnectContext {
  workspaceDir: string;
  hostEnv: NodeJS.ProcessEnv;
  envPolicy?: SubprocessEnvPolicy;
  signal?: AbortSignal;
}

function makeTransport(spec: McpServerSpec, c: ConnectContext, stderr: { text: string }): Transport {
  if (spec.transport === 'stdio') {
    const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js') as typeof StdioModule;
    const t = new StdioClientTransport({
      command: spec.command,
      args: spec.args,
      env: buildMcpServerEnv(c.hostEnv, spec.env, c.envPolicy, c.workspaceDir),
      cwd: spec.cwd ? path.resolve(c.workspaceDir, spec.cwd) : c.workspaceDir,
      stderr: 'pipe',
    });
    t.stderr?.on('data', (chunk: Buffer) => {
      stderr.text = (stderr.text + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    return t;
  }
  const requestInit = { headers: spec.headers };
  if (spec.transport === 'sse') {
    const { SSEClientTransport } = require('@modelcontextprotocol/sdk/client/sse.js') as typeof SseModule;
    return new SSEClientTransport(new URL(spec.url), { requestInit });
  }
  const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js') as typeof HttpModule;
  return new StreamableHTTPClientTransport(new URL(spec.url), { requestInit });
}

async function listAllTools(client: Client, signal: AbortSignal, timeout: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { signal, timeout });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

export async function connectServer(spec: McpServerSpec, c: ConnectContext): Promise<McpConnection> {
  const stderr = { text: '' };
  const { Client } = require('@modelcontextprotocol/sdk/client/index.js') as typeof ClientModule;
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  client.onerror = () => undefined;
  const attempt = new AbortController();
  const onAbort = () => attempt.abort(c.signal?.reason);
  c.signal?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const close = async () => {
    await client.close().catch(() => undefined);
  };
  let timedOut = false;
  try {
    if (c.signal?.aborted) throw new Error('aborted');
    timer = setTimeout(() => {
      timedOut = true;
      attempt.abort();
    }, spec.connectTimeoutMs);
    const stopped = new Promise<never>((_, reject) => attempt.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
    const work = (async () => {
      await client.connect(makeTransport(spec, c, stderr), { signal: attempt.signal, timeout: spec.connectTimeoutMs });
      return listAllTools(client, attempt.signal, spec.connectTimeoutMs);
    })();
    work.catch(() => undefined);
    const tools = await Promise.race([work, stopped]);
    return { client, tools, close };
  } catch (err) {
    await close();
    const msg = timedOut ? `connect timed out after ${spec.connectTimeoutMs}ms` : errorMessage(err);
    const tail = stderr.text.trim();
    throw new Error(tail ? `${msg} (stderr: ${tail.split('\n').slice(-3).join(' | ')})` : msg);
  } finally {
    if (timer) clearTimeout(timer);
    c.signal?.removeEventListener('abort', onAbort);
  }
}
