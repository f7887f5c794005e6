/**
 * The central close-out (engine.md §4.2) with scripted tools: framing, caps, archive, notes order,
 * status priority, images, forwarded messages and abort handling.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as b from '../../../src/core/omnimessage/builders';
import { isPayload } from '../../../src/core/omnimessage/guards';
import type { MessageOf, OmniMessage } from '../../../src/core/omnimessage/types';
import type { BuiltinTool, ToolExecutionContext, ToolResult } from '../../../src/core/interfaces';
import { runWithCloseOut, type CloseOutOptions } from '../../../src/core/environment/close-out';
import { ToolOutputFrame } from '../../../src/core/environment/output-frame';
import { ARCHIVE_MAX_BYTES } from '../../../src/core/environment/limits';
import { assertStreamDiscipline } from '../../helpers/stream-discipline';
import { removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

type Body = (ctx: ToolExecutionContext) => AsyncGenerator<string, ToolResult | void>;
const tool = (body: Body): BuiltinTool<Record<string, never>> => ({ definition: { name: 't', description: '' }, run: (_a, ctx) => body(ctx) });

async function run(body: Body, o: Partial<Omit<CloseOutOptions, 'frame'>> & { max?: number; scratch?: string } = {}) {
  const frame = new ToolOutputFrame('id1', o.max ?? 16000, o.scratch);
  const msgs: OmniMessage[] = [frame.start()];
  const gen = runWithCloseOut(tool(body), {}, {
    frame,
    timeoutMs: o.timeoutMs ?? 0,
    signal: o.signal,
    abortGraceMs: o.abortGraceMs ?? 2000,
    context: { toolCallId: 'id1', workspaceDir: '/tmp', env: {}, services: {}, reach: async () => 'inside' as const },
  });
  for await (const m of gen) msgs.push(m);
  assertStreamDiscipline(msgs);
  const outs = msgs.filter((m) => m.type === 'model_msg' && m.payload.type === 'tool_call_output');
  expect(outs).toHaveLength(1);
  return { msgs, out: outs[0].payload as MessageOf<'tool_call_output'>['payload'] };
}

const waitAbort = (signal: AbortSignal) => new Promise<void>((r) => (signal.aborted ? r() : signal.addEventListener('abort', () => r())));

test('streams content and completes by default', async () => {
  const { msgs, out } = await run(async function* () {
    yield 'hello ';
    yield 'world';
  });
  expect(out).toMatchObject({ output: 'hello world', stop_reason: 'completed', tool_call_id: 'id1' });
  const deltas = msgs.filter((m) => isPayload(m, 'partial_tool_call_output') && m.payload.event_type === 'delta');
  expect(deltas).toHaveLength(2);
});

test('no content and no note gives [no output]', async () => {
  const { out } = await run(async function* () {});
  expect(out.output).toBe('[no output]');
});

test('self-reported failure keeps its note', async () => {
  const { out } = await run(async function* () {
    yield 'x';
    return { stop_reason: 'failed', note: '[exit code: 1]' };
  });
  expect(out).toMatchObject({ output: 'x\n[exit code: 1]', stop_reason: 'failed' });
});

test('head-kept truncation, archive of the full text, notes in order', async () => {
  const scratch = tempDir();
  const full = Array.from({ length: 200 }, (_, i) => `line ${i}\n`).join('');
  const { out } = await run(async function* () {
    for (const line of full.match(/.*\n/g)!) yield line;
    return { note: '[exit code: 2]', stop_reason: 'failed' };
  }, { max: 100, scratch });
  expect(out.output.startsWith(full.slice(0, 100))).toBe(true);
  const notes = out.output.slice(100).split('\n').filter(Boolean);
  expect(notes[0]).toBe('[output truncated: exceeded 100 chars]');
  const archived = /^\[output archived: (.+)\]$/.exec(notes[1]);
  expect(archived).not.toBeNull();
  expect(path.dirname(archived![1])).toBe(path.join(scratch, 'truncated-tool-output'));
  expect(readFileSync(archived![1], 'utf8')).toBe(full);
  expect(notes[2]).toBe('[exit code: 2]');
  expect(notes).toHaveLength(3);
});

test('a cap of 0 disables truncation', async () => {
  const { out } = await run(async function* () {
    yield 'a'.repeat(50_000);
  }, { max: 0 });
  expect(out.output).toHaveLength(50_000);
});

test('without a scratchpad there is no archive note; an unwritable one reports the error code', async () => {
  const body: Body = async function* () {
    yield 'x'.repeat(30);
  };
  const none = await run(body, { max: 10 });
  expect(none.out.output).toBe(`${'x'.repeat(10)}\n[output truncated: exceeded 10 chars]`);
  const blocker = path.join(tempDir(), 'file');
  writeFileSync(blocker, '');
  const bad = await run(body, { max: 10, scratch: blocker });
  expect(bad.out.output).toMatch(/\[output archive failed: (ENOTDIR|EEXIST)\]$/);
});

test('an output beyond 8 MiB archives head and tail within the limit', async () => {
  const scratch = tempDir();
  const chunk = 'é'.repeat(512 * 1024); // 1 MiB of UTF-8 per chunk
  const { out } = await run(async function* () {
    yield 'HEAD-MARK';
    for (let i = 0; i < 10; i++) yield chunk;
    yield 'TAIL-MARK';
  }, { max: 100, scratch });
  const m = /\[output archived \(8 MiB limit; head and tail kept\): (.+)\]/.exec(out.output);
  expect(m).not.toBeNull();
  expect(statSync(m![1]).size).toBeLessThanOrEqual(ARCHIVE_MAX_BYTES);
  const body = readFileSync(m![1], 'utf8');
  expect(body.startsWith('HEAD-MARK')).toBe(true);
  expect(body.endsWith('TAIL-MARK')).toBe(true);
  expect(body).not.toContain('\uFFFD');
});

test('a throw becomes [tool error] and keeps earlier content', async () => {
  const { out } = await run(async function* () {
    yield 'partial';
    throw new Error('boom');
  });
  expect(out).toMatchObject({ output: 'partial\n[tool error] boom', stop_reason: 'failed' });
});

test('timeout fails with the timeout note after the tool note', async () => {
  const { out } = await run(async function* (ctx) {
    yield 'working';
    await waitAbort(ctx.signal);
    return { note: '[terminated by signal SIGKILL]' };
  }, { timeoutMs: 50 });
  expect(out).toMatchObject({ output: 'working\n[terminated by signal SIGKILL]\n[tool timeout: exceeded 50ms]', stop_reason: 'failed' });
});

test('user abort outranks a throw and a self-report', async () => {
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 20);
  const { out } = await run(async function* (ctx) {
    await waitAbort(ctx.signal);
    throw new Error('aborted inside');
  }, { signal: ac.signal });
  expect(out).toMatchObject({ output: '[interrupted: tool aborted by user]', stop_reason: 'aborted' });
});

test('user abort outranks a timeout that fired first', async () => {
  const ac = new AbortController();
  const { out } = await run(async function* (ctx) {
    await waitAbort(ctx.signal);
    ac.abort();
    await new Promise((r) => setTimeout(r, 20));
    return { stop_reason: 'completed' };
  }, { signal: ac.signal, timeoutMs: 20 });
  expect(out.stop_reason).toBe('aborted');
  expect(out.output).toBe('[interrupted: tool aborted by user]');
});

test('an already-aborted signal never starts the tool', async () => {
  const ac = new AbortController();
  ac.abort();
  let started = false;
  const { out } = await run(async function* () {
    started = true;
    yield 'no';
  }, { signal: ac.signal });
  expect(started).toBe(false);
  expect(out).toMatchObject({ output: '[interrupted: tool aborted by user]', stop_reason: 'aborted' });
});

test('a tool that ignores the abort is closed after the grace period', async () => {
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 10);
  let release!: () => void;
  const stuck = new Promise<void>((r) => (release = r));
  const { out } = await run(async function* () {
    yield 'before';
    await stuck;
    yield 'after';
  }, { signal: ac.signal, abortGraceMs: 50 });
  release();
  expect(out).toMatchObject({ output: 'before\n[interrupted: tool aborted by user]', stop_reason: 'aborted' });
});

test('images travel in one delta just before stop, only when completed', async () => {
  const img = 'data:image/png;base64,AAAA';
  const ok = await run(async function* () {
    yield 'pic';
    return { images: [img] };
  });
  expect(ok.out.images).toEqual([img]);
  const n = ok.msgs.length;
  expect(ok.msgs[n - 3].payload).toMatchObject({ event_type: 'delta', output: '', images: [img] });
  expect(ok.msgs[n - 2].payload).toMatchObject({ event_type: 'stop', stop_reason: 'completed' });
  const failed = await run(async function* () {
    yield 'pic';
    return { images: [img], stop_reason: 'failed' };
  });
  expect(failed.out.images).toBeUndefined();
  expect(failed.msgs.some((m) => 'images' in m.payload)).toBe(false);
});

test('forwarded child messages pass through; forwarding after close is dropped', async () => {
  let later: ((m: OmniMessage) => void) | undefined;
  const child = b.withOrigin(b.assistantText('from child'), 'child-1');
  const { msgs } = await run(async function* (ctx) {
    ctx.forward(child);
    yield 'own';
    later = ctx.forward;
  });
  expect(msgs).toContain(child);
  later!(b.withOrigin(b.assistantText('too late'), 'child-1'));
  expect(msgs.filter((m) => m.origin)).toHaveLength(1);
});

test('a consumer that stops early aborts the tool', async () => {
  const frame = new ToolOutputFrame('id2', 100);
  let signal: AbortSignal | undefined;
  const gen = runWithCloseOut(tool(async function* (ctx) {
    signal = ctx.signal;
    yield 'first';
    await waitAbort(ctx.signal);
  }), {}, { frame, timeoutMs: 0, context: { toolCallId: 'id2', workspaceDir: '/tmp', env: {}, services: {}, reach: async () => 'inside' as const } });
  await gen.next();
  await gen.return(undefined);
  expect(signal?.aborted).toBe(true);
});
