/**
 * A hand-built data root for the reindex tests: a top-level session with a subagent, a session of another
 * project and agent (with a failed request), a rotated trace, and noise the walk must survive (a stray
 * file, an agent without traces, a trace without its head). Token counts are C1…C5.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as b from '../../../src/core/omnimessage/builders';
import type { TokenCounts } from '../../../src/core/omnimessage/types';
import { TraceWriter, tracesDir } from '../../../src/core/trace';

export const TOP = 'session-2027-03-01-09-00-00-aaaaaaaa';
export const CHILD = 'session-2027-03-01-09-00-30-bbbbbbbb';
export const OTHER = 'session-2027-03-02-18-30-00-cccccccc';

export const c = (cache_read: number, cache_write: number, output: number): TokenCounts => ({ cache_read, cache_write, output, total: cache_read + cache_write + output });
const meta = (session_id: string, model_id: string, source?: 'subagent') =>
  b.sessionMeta({ session_id, provider: 'openai', model_id, model_context_window: 128000, system_prompt: 'sys', agent_state: '/state', workspace: '/ws', ...(source ? { source } : {}) });

export const C1 = c(0, 1200, 80);
export const C2 = c(1100, 300, 40);
export const C3 = c(0, 500, 10);
export const C4 = c(50, 60, 7);
export const C5 = c(3, 4, 5);

/**
 * Writes the traces under `home`, one record a second from 2027-03-01T09:00:00Z; returns the time of
 * OTHER's last record.
 */
export async function buildTraces(home: string): Promise<number> {
  let tick = Date.parse('2027-03-01T09:00:00.000Z');
  b.setMessageClock(() => new Date((tick += 1000)));
  try {
    return await writeTraces(home, () => tick);
  } finally {
    b.setMessageClock();
  }
}

async function writeTraces(home: string, now: () => number): Promise<number> {
  const dirA = tracesDir(home, 'proj', 'agentA');
  const top = new TraceWriter({ tracesDir: dirA, sessionId: TOP });
  for (const m of [
    meta(TOP, 'big-model'),
    b.toolListReady([]),
    b.userText('hello'),
    b.requestBegin(),
    b.assistantText('hi'),
    b.tokenUsage(C1, C1),
    b.requestEnd('completed'),
    b.userText('use a subagent'),
    b.requestBegin(),
    b.requestEnd('timeout', { attempt: 1, retry_in_ms: 2000, error_message: 'idle timeout' }),
    b.requestBegin(),
    b.toolCall({ name: 'run_subagent', arguments: '{}', tool_call_id: 'call_1' }),
    b.tokenUsage(c(1100, 1500, 120), C2),
    b.requestEnd('completed'),
    b.subagent(CHILD),
  ]) top.append(m);
  await top.rotate([meta(TOP, 'big-model'), b.toolListReady([])]);
  for (const m of [b.requestBegin(), b.tokenUsage(C3, C3), b.requestEnd('completed')]) top.append(m);
  await top.flush();

  const child = new TraceWriter({ tracesDir: dirA, sessionId: CHILD });
  for (const m of [meta(CHILD, 'small-model', 'subagent'), b.text('user', 'do it', { sender: 'parent_agent' }), b.requestBegin(), b.tokenUsage(C4, C4), b.requestEnd('completed')]) child.append(m);
  await child.flush();

  const other = new TraceWriter({ tracesDir: tracesDir(home, 'proj2', 'agentB'), sessionId: OTHER });
  for (const m of [meta(OTHER, 'big-model'), b.requestBegin(), b.tokenUsage(C5, C5), b.requestEnd('completed'), b.requestBegin(), b.requestEnd('auth', { error_message: '401' })]) other.append(m);
  await other.flush();
  const otherEnd = now();

  // Noise the walk must survive: a stray file at the root, an agent without traces, a trace with no head.
  writeFileSync(join(home, 'gateway.db-wal'), '');
  mkdirSync(join(home, 'proj2', 'agents', 'empty'), { recursive: true });
  const badDir = join(tracesDir(home, 'proj', 'agentA'), '2027-03-03');
  mkdirSync(badDir, { recursive: true });
  writeFileSync(join(badDir, 'session-2027-03-03-00-00-00-dddddddd_001.jsonl'), JSON.stringify(b.userText('no meta')) + '\n');
  return otherEnd;
}
