/**
 * HeldFileHandle on real files under a fake clock: a burst of writes opens the file once, the descriptor
 * closes `holdMs` after the last idle() (each idle() re-arms the one timer), not while the writer is busy,
 * at once with a hold of 0, and a close() (after a failed write) makes the next get() open afresh.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeldFileHandle } from '../../src/core/held-file-handle';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pg-held-'));
  jest.useFakeTimers();
});
afterEach(() => {
  jest.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

function held(holdMs: number, busy = () => false) {
  const file = join(dir, 'f.log');
  let opens = 0;
  const h = new HeldFileHandle(async () => {
    opens++;
    return open(file, 'a');
  }, holdMs, busy);
  return { h, file, opens: () => opens };
}

/** Lets the close the timer started finish (it awaits the descriptor's close). */
const settle = async () => {
  for (let i = 0; i < 5; i++) await jest.runOnlyPendingTimersAsync();
};

it('opens once for a burst and closes the hold after the last idle()', async () => {
  const { h, file, opens } = held(1000);
  for (const word of ['a', 'b', 'c']) {
    await (await h.get()).write(word);
    h.idle();
    await jest.advanceTimersByTimeAsync(600);
  }
  expect(opens()).toBe(1);
  expect(h.isOpen).toBe(true);
  await jest.advanceTimersByTimeAsync(500);
  expect(h.isOpen).toBe(false);
  expect(readFileSync(file, 'utf8')).toBe('abc');
  await (await h.get()).write('d');
  expect(opens()).toBe(2);
  await h.close();
});

it('stays open while the writer is busy, and closes at its next idle() plus the hold', async () => {
  let busy = true;
  const { h } = held(1000, () => busy);
  await h.get();
  h.idle();
  await jest.advanceTimersByTimeAsync(5000);
  expect(h.isOpen).toBe(true);
  busy = false;
  h.idle();
  await jest.advanceTimersByTimeAsync(1000);
  expect(h.isOpen).toBe(false);
});

it('closes at once with a hold of 0; idle() without a descriptor does nothing', async () => {
  const { h, opens } = held(0);
  h.idle();
  expect(opens()).toBe(0);
  await h.get();
  h.idle();
  await settle();
  expect(h.isOpen).toBe(false);
});

it('close() drops the descriptor and its timer; the next get() opens afresh', async () => {
  const { h, opens } = held(1000);
  const first = await h.get();
  h.idle();
  await h.close();
  expect(h.isOpen).toBe(false);
  expect(jest.getTimerCount()).toBe(0);
  const second = await h.get();
  expect(second).not.toBe(first);
  expect(opens()).toBe(2);
  await h.close();
});
