/**
 * MessageWriter against a recording fake surface and a fake clock: coalescing, stale-free edits, immediate
 * finals, splitting per platform, healing, error classes (plain, gone, not modified, too long, 429, auth), native modes.
 */
import { DISCORD_LIMITS, SLACK_LIMITS, TELEGRAM_LIMITS, type PlatformLimits } from '../../../src/adapters/contract/limits';
import type { RateScope } from '../../../src/adapters/contract/rate';
import { discordFormatter, slackFormatter, telegramFormatter, type Formatter } from '../../../src/adapters/format/formatter';
import { openFenceAtEnd } from '../../../src/adapters/render/fences';
import { MessageWriter, type WriterEvent, type WriterOptions } from '../../../src/adapters/render/message-writer';
import { RateGovernor } from '../../../src/adapters/render/rate-governor';
import { FakeClock } from '../../helpers/fake-clock';
import { embeddedAnswer, err, FakeSurface, type FakeSurfaceOptions } from '../helpers/fake-surface';

const HEADER = '⚙️ working…';

function setup(o: { limits?: PlatformLimits; surface?: Partial<FakeSurfaceOptions>; writer?: Partial<WriterOptions>; isDM?: boolean } = {}) {
  const clock = new FakeClock();
  const governor = new RateGovernor(clock);
  const surface = new FakeSurface({ clock, ...o.surface });
  const events: WriterEvent[] = [];
  const writer = new MessageWriter({
    surface,
    clock,
    governor,
    limits: o.limits ?? TELEGRAM_LIMITS,
    isDM: o.isDM ?? true,
    onEvent: (e) => events.push(e),
    ...o.writer,
  });
  return { clock, governor, surface, writer, events };
}

/** Schedules `n` deltas `every` ms apart on the fake clock; resolves with the full text. */
function streamDeltas(clock: FakeClock, writer: MessageWriter, deltas: string[], every: number, header = HEADER): { done: Promise<string>; latest: () => string } {
  let text = '';
  const done = new Promise<string>((resolve) => {
    deltas.forEach((d, i) =>
      clock.setTimeout(() => {
        text += d;
        writer.update({ header, answer: text });
        if (i === deltas.length - 1) resolve(text);
      }, every * (i + 1)),
    );
  });
  return { done, latest: () => text };
}

function words(n: number, seed = 1): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(i % 40 === 39 ? '.\n\n' : `${['alpha', 'beta', 'gamma', 'delta', 'epsilon'][(i * seed) % 5]}${i} `);
  return out;
}

describe('message writer: coalescing', () => {
  it('turns a burst of 1,000 deltas into at most ⌈duration/interval⌉ + splits + 1 edits, never sending stale text', async () => {
    let latest = '';
    const { clock, surface, writer } = setup({ surface: { onCall: (c) => (c.note = latest) } });
    const start = clock.now();
    let text = '';
    const finished = new Promise<void>((resolve) => {
      for (let i = 0; i < 1000; i++)
        clock.setTimeout(() => {
          text += words(1000)[i];
          latest = text;
          writer.update({ header: HEADER, answer: text });
          if (i === 999) resolve();
        }, 10 * (i + 1));
    });
    await clock.settle(finished);
    const duration = clock.now() - start;
    const finishedAt = clock.now();
    const result = await clock.settle(writer.finish({ header: '✅ done', answer: text }));
    expect(result.ok).toBe(true);

    const messages = surface.visible();
    const splits = messages.length - 1;
    expect(splits).toBeGreaterThanOrEqual(1);
    const edits = surface.count('edit');
    expect(edits).toBeLessThanOrEqual(Math.ceil(duration / TELEGRAM_LIMITS.minEditIntervalMs.dm) + splits + 1);
    expect(surface.maxInFlight).toBe(1);

    // a message never went back to older text
    for (const m of messages) {
      const lengths = m.history.map((c) => c.answer.length);
      for (let k = 1; k < lengths.length; k++) expect(lengths[k]).toBeGreaterThanOrEqual(lengths[k - 1]);
    }
    // every live request carried the newest text at the moment it was sent: the open message's part
    // reached the end of what had been streamed so far
    const live = surface.calls.filter((c) => c.content && !c.content.final);
    expect(live.length).toBeGreaterThan(5);
    for (const call of live) {
      const latestAtCall = call.note as string;
      const c = call.content!;
      expect(latestAtCall.endsWith(c.answer)).toBe(true);
      expect(latestAtCall.length - c.answer.length).toBe(messages.slice(0, c.part).reduce((n, m) => n + m.content.answer.length, 0));
    }

    // the final flush went out at once, although the last live edit was less than an interval before
    const finalCalls = surface.calls.filter((c) => c.content?.final && c.at >= finishedAt);
    expect(finalCalls.length).toBeGreaterThan(0);
    expect(finalCalls[0].at).toBe(finishedAt);
    expect(surface.deliveredAnswer()).toBe(text);
    expect(messages[0].content.header).toBe('✅ done');
    expect(clock.pending).toBe(0);
  });

  it('renders a lazily given state only when it composes a request, always the newest one', async () => {
    let latest = '';
    const { clock, surface, writer } = setup({ surface: { onCall: (c) => (c.note = latest) } });
    let text = '';
    let renders = 0;
    const finished = new Promise<void>((resolve) => {
      for (let i = 0; i < 1000; i++)
        clock.setTimeout(() => {
          text += words(1000)[i];
          const now = text;
          latest = now;
          writer.updateLazy(() => {
            renders++;
            return { header: HEADER, answer: now };
          }, now.length);
          if (i === 999) resolve();
        }, 10 * (i + 1));
    });
    await clock.settle(finished);
    const result = await clock.settle(writer.finish({ header: '✅ done', answer: text }));
    expect(result.ok).toBe(true);
    expect(surface.deliveredAnswer()).toBe(text);
    const live = surface.calls.filter((c) => c.content && !c.content.final);
    expect(live.length).toBeGreaterThan(5);
    // Rendered when a request is composed (a few times per edit at most), not for each of the 1,000 states.
    expect(renders).toBeLessThanOrEqual(3 * live.length);
    for (const call of live) expect((call.note as string).endsWith(call.content!.answer)).toBe(true);
  });

  it('skips identical content and keeps edits an interval apart', async () => {
    const { clock, surface, writer } = setup({ isDM: false });
    writer.update({ header: HEADER, answer: 'a' });
    await clock.advance(10);
    expect(surface.count('post')).toBe(1);
    for (let i = 0; i < 5; i++) {
      writer.update({ header: HEADER, answer: 'a' });
      await clock.advance(1000);
    }
    expect(surface.calls.filter((c) => c.op === 'edit')).toHaveLength(0);
    // after a quiet spell the next change goes at once; changes right after it wait for the interval
    writer.update({ header: HEADER, answer: 'ab' });
    await clock.advance(1);
    writer.update({ header: HEADER, answer: 'abc' });
    await clock.advance(1);
    writer.update({ header: HEADER, answer: 'abcd' });
    await clock.advance(5000);
    const edits = surface.calls.filter((c) => c.op === 'edit');
    expect(edits.map((e) => e.content!.answer)).toEqual(['ab', 'abcd']);
    expect(edits[1].at - edits[0].at).toBeGreaterThanOrEqual(TELEGRAM_LIMITS.minEditIntervalMs.group);
    await clock.settle(writer.finish({ header: HEADER, answer: 'abcd' }));
    expect(surface.calls.filter((c) => c.op === 'edit')).toHaveLength(3);
  });
});

describe('message writer: splitting and healing', () => {
  const platforms: Array<[string, PlatformLimits, Formatter]> = [
    ['slack', SLACK_LIMITS, slackFormatter],
    ['discord', DISCORD_LIMITS, discordFormatter],
    ['telegram', TELEGRAM_LIMITS, telegramFormatter],
  ];

  it.each(platforms)('%s: rolls long answers into messages below the split target, fences closed and reopened', async (_name, limits, f) => {
    const measure = (md: string) => f.length(f.render(md));
    const { clock, surface, writer } = setup({ limits, writer: { measure } });
    const block = (i: number) =>
      [`Step ${i}: **important** notes with [a link](https://example.com/${i}) and 😀 emoji.`, '', '```ts', ...Array.from({ length: 30 }, (_, k) => `const v${i}_${k} = compute(${k}); // <${k}> & more`), '```', ''].join('\n');
    const full = Array.from({ length: 14 }, (_, i) => block(i)).join('\n');
    const chunks = full.match(/[\s\S]{1,37}/g)!;
    const s = streamDeltas(clock, writer, chunks, 20);
    await clock.settle(s.done);
    const r = await clock.settle(writer.finish({ header: '✅ done', answer: full }));
    expect(r.ok).toBe(true);
    const msgs = surface.visible();
    expect(msgs.length).toBeGreaterThan(2);
    expect(surface.deliveredAnswer()).toBe(full);
    for (const m of msgs) {
      const c = m.content;
      expect(embeddedAnswer(c)).toBe(c.answer);
      expect(openFenceAtEnd(c.text)).toBeNull();
      const len = measure(c.text);
      expect(len).toBeLessThanOrEqual(limits.splitTarget);
      expect(len).toBeLessThanOrEqual(limits.maxChars);
      // every intermediate version was within the hard limit too
      for (const h of m.history) expect(measure(h.text)).toBeLessThanOrEqual(limits.maxChars);
    }
    // continuation messages that start inside a code block reopen it with its language
    expect(msgs.slice(1).some((m) => m.content.text.startsWith('```ts\n'))).toBe(true);
  });

  it('heals live edits (open emphasis, code spans, fences) but sends the final text unhealed', async () => {
    const { clock, surface, writer } = setup();
    writer.update({ header: HEADER, answer: 'Here is **impor' });
    await clock.advance(100);
    expect(surface.visible()[0].content.text).toBe(`${HEADER}\n\nHere is **impor**`);
    writer.update({ header: HEADER, answer: 'Here is **important** `code' });
    await clock.advance(1500);
    expect(surface.visible()[0].content.text).toBe(`${HEADER}\n\nHere is **important** \`code\``);
    writer.update({ header: HEADER, answer: 'Run:\n\n```sh\nnpm test' });
    await clock.advance(1500);
    expect(surface.visible()[0].content.text).toBe(`${HEADER}\n\nRun:\n\n\`\`\`sh\nnpm test\n\`\`\``);
    await clock.settle(writer.finish({ header: '✅ done', answer: 'Here is **impor' }));
    expect(surface.visible()[0].content.text).toBe('✅ done\n\nHere is **impor');
  });

  it('keeps the live status line on the last message only: a committed part never carries it', async () => {
    const { clock, surface, writer } = setup({ limits: { ...DISCORD_LIMITS, splitTarget: 400, maxChars: 500 } });
    const tools = '✅ `read_file`: Read the notes';
    const long = Array.from({ length: 12 }, (_, i) => `Paragraph ${i} with some words in it.`).join('\n\n');
    writer.update({ status: '✍️ writing…', header: tools, answer: long });
    await clock.advance(2000);
    const msgs = surface.visible();
    expect(msgs.length).toBeGreaterThan(1);
    expect(msgs[0].content.text.startsWith(tools)).toBe(true);
    for (const m of msgs.slice(0, -1)) for (const h of [...m.history, m.content]) expect(h.text).not.toContain('✍️');
    expect(msgs[msgs.length - 1].content.text.startsWith('✍️ writing…\n\n')).toBe(true);
    expect(msgs[msgs.length - 1].content.status).toBe('✍️ writing…');
    await clock.settle(writer.finish({ status: '', header: tools, answer: long }));
    expect(surface.visible().some((m) => m.content.text.includes('✍️'))).toBe(false);
    expect(surface.deliveredAnswer()).toBe(long);
  });

  it('puts the Stop button on the last message and drops it at the end', async () => {
    const { clock, surface, writer } = setup({ limits: { ...DISCORD_LIMITS, splitTarget: 400, maxChars: 500 } });
    const stop = [{ label: 'Stop', payload: 's:t1', style: 'danger' as const }];
    const long = Array.from({ length: 12 }, (_, i) => `Paragraph ${i} with some words in it.`).join('\n\n');
    writer.update({ header: HEADER, answer: long, buttons: stop });
    await clock.advance(2000);
    const msgs = surface.visible();
    expect(msgs.length).toBeGreaterThan(1);
    expect(msgs.map((m) => !!m.content.buttons)).toEqual(msgs.map((_, i) => i === msgs.length - 1));
    await clock.settle(writer.finish({ header: '✅ done', answer: long }));
    expect(surface.visible().every((m) => !m.content.buttons)).toBe(true);
  });

  it('deletes continuation messages when the answer shrinks (a retried attempt is dropped)', async () => {
    const { clock, surface, writer } = setup({ limits: { ...DISCORD_LIMITS, splitTarget: 300, maxChars: 400 } });
    const long = Array.from({ length: 10 }, (_, i) => `Attempt one paragraph ${i}.`).join('\n\n');
    writer.update({ header: HEADER, answer: long });
    await clock.advance(3000);
    expect(surface.visible().length).toBeGreaterThan(1);
    await clock.settle(writer.finish({ header: '✅ done', answer: 'Short final answer.' }));
    expect(surface.visible().map((m) => m.content.text)).toEqual(['✅ done\n\nShort final answer.']);
    expect(surface.count('delete')).toBeGreaterThan(0);
  });
});

describe('message writer: errors', () => {
  const chat: RateScope = { key: 'chat', limit: { count: 1, perMs: 1000, burst: 5 }, level: 'chat' };

  it('resends as plain text when the platform cannot parse the formatting', async () => {
    const { clock, surface, writer } = setup({ surface: { faults: (op, call) => (op === 'post' && !call.content!.plain ? { error: err.format() } : undefined) } });
    const r = await clock.settle(writer.finish({ header: HEADER, answer: 'some *text*' }));
    expect(r.ok).toBe(true);
    expect(surface.visible()[0].content.plain).toBe(true);
    expect(surface.deliveredAnswer()).toBe('some *text*');
  });

  it('posts anew when the message was deleted, and treats "not modified" as delivered', async () => {
    const { clock, surface, writer } = setup({ surface: { rejectIdentical: true } });
    writer.update({ header: HEADER, answer: 'one' });
    await clock.advance(100);
    const first = surface.visible()[0];
    first.deleted = true;
    writer.update({ header: HEADER, answer: 'one two' });
    await clock.advance(2000);
    expect(surface.visible()).toHaveLength(1);
    expect(surface.visible()[0].id).not.toBe(first.id);
    expect(surface.visible()[0].content.answer).toBe('one two');
    const r = await clock.settle(writer.finish({ header: HEADER, answer: 'one two' }));
    expect(r.ok).toBe(true);
  });

  it('retries a final edit whose response was lost; the platform answers "not modified" and that counts', async () => {
    let lost = 0;
    const { clock, surface, writer } = setup({
      surface: { rejectIdentical: true, faults: (op, call) => (op === 'edit' && call.content!.final && lost++ === 0 ? { error: err.transient(), afterApply: true } : undefined) },
    });
    writer.update({ header: HEADER, answer: 'draft' });
    await clock.advance(100);
    const r = await clock.settle(writer.finish({ header: '✅ done', answer: 'final words' }));
    expect(r.ok).toBe(true);
    expect(surface.calls.filter((c) => c.op === 'edit').map((c) => c.failed?.message)).toEqual(['ECONNRESET', 'message is not modified']);
    expect(surface.visible()[0].content.answer).toBe('final words');
  });

  it('re-splits smaller when the platform says the message is too long', async () => {
    const { clock, surface, writer } = setup({ limits: { ...TELEGRAM_LIMITS }, surface: { maxLength: 2500 } });
    const text = Array.from({ length: 100 }, (_, i) => `Line number ${i} of a long answer.`).join('\n');
    const r = await clock.settle(writer.finish({ header: HEADER, answer: text }));
    expect(r.ok).toBe(true);
    expect(surface.visible().length).toBeGreaterThan(1);
    expect(surface.visible().every((m) => m.content.text.length <= 2500)).toBe(true);
    expect(surface.deliveredAnswer()).toBe(text);
  });

  it('honours retry_after for finals, pausing the rate bucket, within 5 tries', async () => {
    let n = 0;
    const { clock, surface, writer, governor } = setup({ surface: { scopes: () => [chat], faults: (op) => (op === 'post' && n++ < 2 ? { error: err.rateLimited(7000) } : undefined) } });
    const t0 = clock.now();
    const r = await clock.settle(writer.finish({ header: HEADER, answer: 'hello' }));
    expect(r.ok).toBe(true);
    const posts = surface.calls.filter((c) => c.op === 'post').map((c) => c.at - t0);
    expect(posts).toEqual([0, 7040, 14080]);
    expect(governor.stats()[0].key).toBe('chat');
  });

  it('gives up on a final after 5 tries and reports the error', async () => {
    const { clock, surface, writer } = setup({ surface: { faults: () => ({ error: err.transient() }) } });
    const r = await clock.settle(writer.finish({ header: HEADER, answer: 'x' }));
    expect(r.ok).toBe(false);
    expect(surface.calls).toHaveLength(5);
    expect(!r.ok && r.reason).toBe('failed');
    expect(r.ok ? undefined : r.error?.message).toBe('ECONNRESET');
  });

  it('skips live edits instead of waiting out a long retry_after; the next flush carries newer text', async () => {
    let limited = true;
    const { clock, surface, writer } = setup({ surface: { scopes: () => [chat], faults: (op) => (op === 'edit' && limited ? { error: err.rateLimited(30_000) } : undefined) } });
    writer.update({ header: HEADER, answer: 'a' });
    await clock.advance(100);
    writer.update({ header: HEADER, answer: 'ab' });
    await clock.advance(2000);
    expect(surface.calls.filter((c) => c.op === 'edit')).toHaveLength(1);
    for (let i = 0; i < 20; i++) {
      writer.update({ header: HEADER, answer: 'ab' + 'c'.repeat(i + 1) });
      await clock.advance(1000);
    }
    // no edits were queued behind the pause
    expect(surface.calls.filter((c) => c.op === 'edit')).toHaveLength(1);
    limited = false;
    await clock.advance(10_000);
    const edits = surface.calls.filter((c) => c.op === 'edit' && !c.failed);
    expect(edits).toHaveLength(1);
    expect(edits[0].content!.answer).toBe('ab' + 'c'.repeat(20));
    await clock.settle(writer.finish({ header: HEADER, answer: 'done' }));
  });

  it('stops and surfaces auth / permission errors', async () => {
    const { clock, surface, writer, events } = setup({ surface: { faults: () => ({ error: err.auth() }) } });
    writer.update({ header: HEADER, answer: 'a' });
    await clock.advance(100);
    writer.update({ header: HEADER, answer: 'ab' });
    const r = await clock.settle(writer.finish({ header: HEADER, answer: 'abc' }));
    expect(r.ok).toBe(false);
    expect(r.ok ? undefined : r.error?.classification).toEqual({ kind: 'surface', reason: 'auth' });
    expect(surface.calls).toHaveLength(1);
    expect(events.some((e) => e.type === 'failed')).toBe(true);
    expect(writer.failed?.message).toBe('invalid_auth');
  });

  it('close() abandons the reply: a pending finish resolves as closed and no timer is left', async () => {
    const { clock, surface, writer } = setup({ surface: { faults: () => ({ error: err.transient() }) } });
    const pending = writer.finish({ header: HEADER, answer: 'x' });
    await clock.advance(1500);
    writer.close();
    expect(await pending).toEqual({ ok: false, messageIds: [], reason: 'closed' });
    await clock.runAll();
    expect(clock.pending).toBe(0);
    expect(surface.calls.length).toBeLessThanOrEqual(2);
  });

  it('flushNow delivers pending text at once (before an approval card)', async () => {
    const { clock, surface, writer } = setup({ isDM: false });
    writer.update({ header: HEADER, answer: 'a' });
    await clock.advance(50);
    writer.update({ header: HEADER, answer: 'about to ask' });
    const before = clock.now();
    await clock.settle(writer.flushNow());
    expect(surface.visible()[0].content.answer).toBe('about to ask');
    expect(clock.now() - before).toBeLessThan(TELEGRAM_LIMITS.minEditIntervalMs.group);
    await clock.settle(writer.finish({ header: HEADER, answer: 'about to ask' }));
  });
});

describe('message writer: native streaming', () => {
  it('draft mode previews the open part and posts real messages at the end', async () => {
    const { clock, surface, writer } = setup({ surface: { native: 'draft' } });
    const s = streamDeltas(clock, writer, ['Hel', 'lo ', 'world'], 400);
    await clock.settle(s.done);
    await clock.advance(1500);
    expect(surface.count('post')).toBe(0);
    expect(surface.drafts.map((d) => d.answer).pop()).toBe('Hello world');
    const r = await clock.settle(writer.finish({ header: '✅ done', answer: 'Hello world' }));
    expect(r.ok).toBe(true);
    expect(surface.visible().map((m) => m.content.text)).toEqual(['✅ done\n\nHello world']);
  });

  it('draft mode refreshes an idle preview before it expires', async () => {
    const { clock, surface, writer } = setup({ surface: { native: 'draft' }, writer: { draftRefreshMs: 20_000 } });
    writer.update({ header: HEADER, answer: 'waiting on a tool' });
    await clock.advance(65_000);
    expect(surface.count('draft')).toBe(4);
    await clock.settle(writer.finish({ header: HEADER, answer: 'ok' }));
  });

  it('falls back to post + edit when drafts are refused', async () => {
    const { clock, surface, writer, events } = setup({ surface: { native: 'draft', faults: (op) => (op === 'draft' ? { error: err.draftUnsupported() } : undefined) } });
    const s = streamDeltas(clock, writer, ['one ', 'two ', 'three'], 700);
    await clock.settle(s.done);
    await clock.advance(2000);
    expect(surface.count('post')).toBe(1);
    expect(events.some((e) => e.type === 'degraded' && e.reason === 'draft_unsupported')).toBe(true);
    await clock.settle(writer.finish({ header: HEADER, answer: 'one two three' }));
    expect(surface.deliveredAnswer()).toBe('one two three');
  });

  it('append mode streams only the new tail and settles the message with its final content', async () => {
    const { clock, surface, writer } = setup({ limits: SLACK_LIMITS, surface: { native: 'append' } });
    const s = streamDeltas(clock, writer, ['Hel', 'lo ', 'wor', 'ld'], 900);
    await clock.settle(s.done);
    await clock.advance(2000);
    const appends = surface.calls.filter((c) => c.op === 'stream_append').map((c) => c.delta);
    expect(appends.join('')).toBe('lo world');
    const r = await clock.settle(writer.finish({ header: '✅ done', answer: 'Hello world' }));
    expect(r.ok).toBe(true);
    expect(surface.calls.filter((c) => c.op === 'stream_stop')).toHaveLength(1);
    expect(surface.visible().map((m) => m.content.text)).toEqual(['✅ done\n\nHello world']);
  });

  it('append mode stops the stream and edits when the text is rewritten', async () => {
    const { clock, surface, writer } = setup({ limits: SLACK_LIMITS, surface: { native: 'append' } });
    writer.update({ header: HEADER, answer: 'first attempt' });
    await clock.advance(2000);
    writer.update({ header: HEADER, answer: 'second' });
    await clock.advance(2000);
    expect(surface.calls.map((c) => c.op)).toEqual(['stream_start', 'stream_stop']);
    writer.update({ header: HEADER, answer: 'second try' });
    await clock.advance(2000);
    expect(surface.calls.map((c) => c.op)).toEqual(['stream_start', 'stream_stop', 'edit']);
    await clock.settle(writer.finish({ header: HEADER, answer: 'second try' }));
    expect(surface.deliveredAnswer()).toBe('second try');
  });
});
