/** TraceTail: what another process appends to a session's trace files reaches the watcher, whole lines only, new files too, nothing from before it started. */
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as b from '../../../src/core/omnimessage/builders';
import type { OmniMessage } from '../../../src/core/omnimessage/types';
import { newSessionId, traceFilePath } from '../../../src/core/trace/paths';
import { tailTrace } from '../../../src/gateway/runtime/trace-tail';

const line = (m: OmniMessage) => `${JSON.stringify(m)}\n`;
const texts = (ms: readonly OmniMessage[]) => ms.map((m) => (m.payload as { text?: string; type?: string }).text ?? (m.payload as { type?: string }).type);

async function until(probe: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !probe(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!probe()) throw new Error('timed out');
}

describe('tailTrace', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pg-tail-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('hands on appended records in order, holds a torn line until it is whole, and follows a new file', async () => {
    const id = newSessionId();
    const first = traceFilePath(dir, id, 1);
    await mkdir(dirname(first), { recursive: true });
    await writeFile(first, line(b.text('user', 'before the watch')));
    const seen: OmniMessage[] = [];
    const stop = tailTrace(dir, id, (ms) => seen.push(...ms), 10);
    await new Promise((r) => setTimeout(r, 50));
    const torn = line(b.text('assistant', 'second'));
    await appendFile(first, line(b.text('assistant', 'first')) + torn.slice(0, 10));
    await until(() => seen.length === 1);
    await appendFile(first, torn.slice(10));
    await until(() => seen.length === 2);
    await writeFile(traceFilePath(dir, id, 2), line(b.text('user', 'in the next file')));
    await until(() => seen.length === 3);
    stop();
    await appendFile(first, line(b.text('assistant', 'after stop')));
    await new Promise((r) => setTimeout(r, 50));
    expect(texts(seen)).toEqual(['first', 'second', 'in the next file']);
  });
});
