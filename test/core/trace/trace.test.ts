/** Trace writer and reader: layout, serialized appends, torn-tail healing, tolerant reading, rotation. */
import { readdirSync, readlinkSync } from 'node:fs';
import { appendFile, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { attachJson, sharedItemsJson } from '../../../src/core/json-splice';
import * as b from '../../../src/core/omnimessage/builders';
import type { OmniMessage } from '../../../src/core/omnimessage/types';
import {
  TraceWriter, isSessionId, listSessionIds, listTraceFiles, newSessionId, parseTraceText, readAllTraces, readLatestTrace, readTraceFile, sessionDate, traceFilePath, tracesDir,
} from '../../../src/core/trace';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'pg-trace-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const kind = (m: OmniMessage) => (m.type === 'session_meta' ? 'session_meta' : m.payload.type);
const meta = (id: string) =>
  b.sessionMeta({ session_id: id, provider: 'p', model_id: 'm', model_context_window: 1000, system_prompt: 's', agent_state: '/a', workspace: '/w' });

describe('trace paths', () => {
  it('makes chronological session ids in local time', () => {
    const id = newSessionId(new Date(2026, 10, 30, 9, 5, 7));
    expect(id).toMatch(/^session-2026-11-30-09-05-07-[0-9a-f]{8}$/);
    expect(isSessionId(id)).toBe(true);
    expect(isSessionId('session-2026-11-30')).toBe(false);
    expect(sessionDate(id)).toBe('2026-11-30');
    expect(() => sessionDate('nope')).toThrow(RangeError);
  });

  it('lays files out as <root>/<project>/agents/<agent>/traces/<date>/<id>_<NNN>.jsonl', () => {
    const dir = tracesDir('/r', 'default_project', 'default_agent');
    expect(traceFilePath(dir, 'session-2026-11-30-09-05-07-0123abcd', 2)).toBe('/r/default_project/agents/default_agent/traces/2026-11-30/session-2026-11-30-09-05-07-0123abcd_002.jsonl');
  });
});

describe('TraceWriter', () => {
  it('writes every line as JSON.stringify of its message: spliced JSON, shared tool JSON and long lines alike', async () => {
    const id = newSessionId();
    const tools = [{ name: 'read_file', description: 'Reads — a file 😀', parameters: { type: 'object', properties: {} } }];
    const list = b.toolListReady(tools);
    attachJson(list.payload, 'tools', () => sharedItemsJson(tools));
    const spliced = b.sessionMeta({ session_id: id, provider: 'p', model_id: 'm', model_context_window: 1000, system_prompt: 'Be "brief" — 😀', agent_state: '/a', workspace: '/w' });
    attachJson(spliced.payload, 'system_prompt', () => [JSON.stringify('Be "brief" — 😀')]);
    const msgs = [spliced, list, b.userText(`long — ${'x'.repeat(9000)}`), b.userText('short')];
    const w = new TraceWriter({ tracesDir: root, sessionId: id });
    for (const m of msgs) await w.append(m);
    const text = await readFile((await listTraceFiles(root, id))[0].path, 'utf8');
    expect(text).toBe(msgs.map((m) => `${JSON.stringify(m)}\n`).join(''));
  });

  it('keeps its descriptor while a session writes and lets it go once the session rests', async () => {
    const id = newSessionId();
    const w = new TraceWriter({ tracesDir: root, sessionId: id, holdMs: 300 });
    await w.append(meta(id));
    const file = (await listTraceFiles(root, id))[0].path;
    const held = () => readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === file;
      } catch {
        return false;
      }
    }).length;
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    await sleep(50);
    expect(held()).toBe(1);
    await w.append(b.userText('next'));
    for (let i = 0; i < 200 && held() > 0; i++) await sleep(10);
    expect(held()).toBe(0);
    await w.append(b.userText('later'));
    expect((await readFile(file, 'utf8')).trim().split('\n').map((l) => kind(JSON.parse(l)))).toEqual(['session_meta', 'text', 'text']);
    for (let i = 0; i < 200 && held() > 0; i++) await sleep(10);
    expect(held()).toBe(0);
  });

  it('writes into a trace folder that was removed after an earlier session made it', async () => {
    const first = newSessionId();
    const w1 = new TraceWriter({ tracesDir: root, sessionId: first });
    await w1.append(meta(first));
    await rm(root, { recursive: true, force: true });
    const second = newSessionId();
    const w2 = new TraceWriter({ tracesDir: root, sessionId: second });
    await w2.append(meta(second));
    const read = await readLatestTrace(root, second);
    expect(read.ok && read.file.meta.payload.session_id).toBe(second);
  });

  it('lets many new sessions make their first writes into a new folder at once', async () => {
    const dir = join(root, 'fresh');
    const ids = Array.from({ length: 40 }, () => newSessionId());
    await Promise.all(ids.map((id) => new TraceWriter({ tracesDir: dir, sessionId: id }).append(meta(id))));
    for (const id of ids) {
      const read = await readLatestTrace(dir, id);
      expect(read.ok && read.file.meta.payload.session_id).toBe(id);
    }
  });

  it('reports a folder that cannot be made to every writer waiting for it, and makes it once it can be', async () => {
    const blocker = join(root, 'blocked');
    await writeFile(blocker, 'not a dir');
    const ids = [newSessionId(), newSessionId(), newSessionId()];
    const errors: string[] = [];
    await Promise.all(ids.map((id) => {
      const w = new TraceWriter({ tracesDir: blocker, sessionId: id });
      w.onError = () => void errors.push(id);
      return w.append(meta(id));
    }));
    expect(errors.sort()).toEqual([...ids].sort());
    await rm(blocker);
    const id = newSessionId();
    await new TraceWriter({ tracesDir: blocker, sessionId: id }).append(meta(id));
    const read = await readLatestTrace(blocker, id);
    expect(read.ok && read.file.meta.payload.session_id).toBe(id);
  });

  it('writes one line per envelope and skips partials and origin-tagged messages', async () => {
    const id = newSessionId();
    const w = new TraceWriter({ tracesDir: root, sessionId: id });
    w.append(meta(id));
    w.append(b.partialText('delta', 'x'));
    w.append(b.withOrigin(b.assistantText('child'), 'child-session'));
    await w.append(b.assistantText('hello'));
    const lines = (await readFile(w.path, 'utf8')).trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l).type)).toEqual(['session_meta', 'model_msg']);
  });

  it('keeps call order and never interleaves lines under concurrent appends', async () => {
    const id = newSessionId();
    const w = new TraceWriter({ tracesDir: root, sessionId: id });
    const other = new TraceWriter({ tracesDir: root, sessionId: id }); // a second writer on the same file
    const big = 'x'.repeat(200_000);
    // Each writer heals a torn tail once, when it first opens the file (crash recovery, before it is shared).
    await w.append(meta(id));
    await other.append(b.userText('other joins'));
    const jobs: Promise<void>[] = [];
    for (let i = 0; i < 200; i++) {
      jobs.push(w.append(b.assistantText(`${i}:${i % 10 === 0 ? big : ''}`)));
      jobs.push(other.append(b.userText(`o${i}:${i % 7 === 0 ? big : ''}`)));
    }
    await Promise.all(jobs);
    const r = await readTraceFile(w.path);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.file.skipped).toBe(0);
    expect(r.file.messages).toHaveLength(401);
    const mine = r.file.messages.filter((m) => m.type === 'model_msg' && m.payload.type === 'text' && m.payload.role === 'assistant');
    expect(mine.map((m) => Number((m.payload as { text: string }).text.split(':')[0]))).toEqual([...Array(200).keys()]);
  });

  it('heals a torn last line before appending', async () => {
    const id = newSessionId();
    const w = new TraceWriter({ tracesDir: root, sessionId: id });
    await w.append(meta(id));
    await w.append(b.userText('kept'));
    await appendFile(w.path, '{"timestamp":"2026-01-01T00:00:00Z","type":"model_msg","payl');
    const resumed = await TraceWriter.resume(root, id);
    await resumed.append(b.assistantText('after crash'));
    const r = await readTraceFile(resumed.path);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.file.skipped).toBe(0);
    expect(r.file.truncatedTail).toBe(false);
    expect(r.file.messages.map((m) => (m.payload as { text: string }).text)).toEqual(['kept', 'after crash']);
  });

  it('a fresh writer (a new session) does not look for a torn tail in its new file; any other writer does', async () => {
    const probe = await open(join(root, 'probe'), 'a+');
    const handleProto = Object.getPrototypeOf(probe) as { stat: () => Promise<unknown> };
    await probe.close();
    const stat = jest.spyOn(handleProto, 'stat');
    try {
      const id = newSessionId();
      const fresh = new TraceWriter({ tracesDir: root, sessionId: id, fresh: true });
      await fresh.append(meta(id));
      await fresh.append(b.userText('first'));
      expect(stat).not.toHaveBeenCalled();
      const other = newSessionId();
      await new TraceWriter({ tracesDir: root, sessionId: other }).append(meta(other));
      expect(stat).toHaveBeenCalledTimes(1);
      const r = await readTraceFile(fresh.path);
      expect(r.ok && r.file.messages.map((m) => (m.payload as { text: string }).text)).toEqual(['first']);
    } finally {
      stat.mockRestore();
    }
  });

  it('completes a whole last record that only lacks its newline', async () => {
    const id = newSessionId();
    const w = new TraceWriter({ tracesDir: root, sessionId: id });
    await w.append(meta(id));
    await appendFile(w.path, JSON.stringify(b.userText('whole')));
    const resumed = await TraceWriter.resume(root, id);
    await resumed.append(b.assistantText('next'));
    const r = await readTraceFile(resumed.path);
    expect(r.ok && r.file.messages.map((m) => (m.payload as { text: string }).text)).toEqual(['whole', 'next']);
  });

  it('rotates to the next file, which starts with the given head', async () => {
    const id = newSessionId();
    const w = new TraceWriter({ tracesDir: root, sessionId: id });
    await w.append(meta(id));
    await w.append(b.userText('first context'));
    await w.rotate([meta(id), b.toolListReady([])]);
    await w.append(b.userText('second context'));
    expect(w.index).toBe(2);
    const files = await listTraceFiles(root, id);
    expect(files.map((f) => f.index)).toEqual([1, 2]);
    const latest = await readLatestTrace(root, id);
    if (!latest.ok) throw new Error(latest.error.message);
    expect(latest.file.index).toBe(2);
    expect(latest.file.messages.map(kind)).toEqual(['tool_list_ready', 'text']);
    const resumed = await TraceWriter.resume(root, id);
    expect(resumed.index).toBe(2);
    const all = await readAllTraces(root, id);
    expect(all.files).toHaveLength(2);
    expect(await listSessionIds(root)).toEqual([id]);
  });

  it('reports I/O errors to onError instead of rejecting', async () => {
    const blocker = join(root, 'file');
    await writeFile(blocker, 'not a dir');
    const id = newSessionId();
    const w = new TraceWriter({ tracesDir: blocker, sessionId: id });
    const errors: Error[] = [];
    w.onError = (e) => errors.push(e);
    await expect(w.append(meta(id))).resolves.toBeUndefined();
    expect(errors).toHaveLength(1);
  });

  it('tells onWritten what reached the disk, in trace order, and never what failed', async () => {
    const id = newSessionId();
    const w = new TraceWriter({ tracesDir: root, sessionId: id });
    const seen: string[] = [];
    w.onWritten = (msgs) => seen.push(...msgs.map(kind));
    const first = meta(id);
    void w.append(first);
    void w.append(b.userText('queued together'));
    await w.append(b.partialText('start', ''));
    await w.rotate([meta(id), b.toolListReady([])]);
    await w.append(b.assistantText('after rotation'));
    expect(seen).toEqual(['session_meta', 'text', 'session_meta', 'tool_list_ready', 'text']);
    const blocked = new TraceWriter({ tracesDir: join(root, 'file-not-dir'), sessionId: id });
    await writeFile(join(root, 'file-not-dir'), 'x');
    blocked.onError = () => undefined;
    const none: unknown[] = [];
    blocked.onWritten = (msgs) => none.push(...msgs);
    await blocked.append(meta(id));
    expect(none).toEqual([]);
  });
});

describe('trace reader', () => {
  const good = (id: string) => [JSON.stringify(meta(id)), JSON.stringify(b.userText('a'))];

  it('skips bad middle lines and counts them', () => {
    const id = newSessionId();
    const text = [...good(id), 'garbage{', '{"type":"model_msg"}', '[]', JSON.stringify(b.assistantText('b')), ''].join('\n');
    const r = parseTraceText(text);
    expect(r.ok && r.file.skipped).toBe(3);
    expect(r.ok && r.file.messages.map(kind)).toEqual(['text', 'text']);
  });

  it('drops a truncated last line', () => {
    const id = newSessionId();
    const r = parseTraceText([...good(id), '{"timestamp":"x","ty'].join('\n'));
    expect(r.ok && r.file).toMatchObject({ truncatedTail: true, skipped: 0 });
  });

  it('returns typed errors for empty files, garbage and a missing session_meta', async () => {
    expect(parseTraceText('')).toMatchObject({ ok: false, error: { code: 'empty' } });
    expect(parseTraceText('\n\n')).toMatchObject({ ok: false, error: { code: 'empty' } });
    expect(parseTraceText('garbage\nmore garbage\n')).toMatchObject({ ok: false, error: { code: 'no_session_meta' } });
    expect(parseTraceText(JSON.stringify(b.userText('x')) + '\n')).toMatchObject({ ok: false, error: { code: 'no_session_meta', message: expect.stringContaining('found model_msg (text)') } });
    expect(await readTraceFile(join(root, 'missing.jsonl'))).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await readLatestTrace(root, newSessionId())).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await readTraceFile(root)).toMatchObject({ ok: false, error: { code: 'io' } });
  });
});
