/**
 * SseJsonReader over a real Node stream: the chunks of a streamed answer arrive whole and in order however
 * the bytes are cut (property), with every line ending; comments and other fields are skipped; nothing
 * after [DONE] counts; bad JSON, an error event, a body error or an early close end it as errors; an abort
 * wins over waiting chunks; the idle timeout counts only the time a caller waits (fake clock).
 */
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { SseJsonReader, type SseRead } from '../../../src/core/llm/sse-reader';

const errorEvent = (error: unknown) => ({ provider: error });

function reader(opts: { signal?: AbortSignal; idleMs?: number } = {}) {
  const body = new PassThrough();
  const r = new SseJsonReader(body, opts.signal, opts.idleMs ?? 0, errorEvent);
  return { body, r };
}

/** Every read until the end or an error, chunks flattened. */
async function readAll(r: SseJsonReader): Promise<{ chunks: unknown[]; last: SseRead }> {
  const chunks: unknown[] = [];
  for (;;) {
    const got = await r.next();
    if (got.kind !== 'chunks') return { chunks, last: got };
    chunks.push(...got.chunks);
  }
}

const event = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;

describe('chunks', () => {
  const answer = [
    ': keep-alive comment\n\n',
    event({ i: 0, text: 'Grüße, ' }),
    'event: message\nid: 7\nretry: 100\n',
    event({ i: 1, text: '世界 🐧' }),
    'data:{"i":2,\ndata: "text":"two lines"}\n\n',
    event({ i: 3, text: '' }),
    'data: [DONE]\n\n',
  ].join('');
  const expected = [{ i: 0, text: 'Grüße, ' }, { i: 1, text: '世界 🐧' }, { i: 2, text: 'two lines' }, { i: 3, text: '' }];

  it('arrive whole and in order however the bytes are cut, with \\n, \\r\\n or \\r line ends', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('\n', '\r\n', '\r'), fc.array(fc.nat(), { maxLength: 12 }), async (eol, cuts) => {
        const bytes = Buffer.from(answer.replace(/\n/g, eol), 'utf8');
        const at = [...new Set(cuts.map((c) => c % bytes.length))].sort((a, b) => a - b);
        const { body, r } = reader();
        const done = readAll(r);
        let from = 0;
        for (const to of [...at, bytes.length]) {
          body.write(bytes.subarray(from, to));
          from = to;
          await new Promise((res) => setImmediate(res));
        }
        body.end();
        const { chunks, last } = await done;
        r.close();
        expect(chunks).toEqual(expected);
        expect(last).toEqual({ kind: 'end' });
      }),
      { numRuns: 150 },
    );
  });

  it('a wait takes every chunk that arrived meanwhile, in one batch', async () => {
    const { body, r } = reader();
    body.write(event({ n: 1 }) + event({ n: 2 }));
    body.write(event({ n: 3 }));
    await new Promise((res) => setImmediate(res));
    expect(await r.next()).toEqual({ kind: 'chunks', chunks: [{ n: 1 }, { n: 2 }, { n: 3 }] });
    r.close();
  });

  it('nothing after [DONE] counts; the end is the end of the body', async () => {
    const { body, r } = reader();
    body.end(event({ n: 1 }) + 'data: [DONE]\n\n' + event({ n: 2 }) + 'data: not json\n\n');
    expect(await readAll(r)).toEqual({ chunks: [{ n: 1 }], last: { kind: 'end' } });
  });

  it('an event the body ends inside of is dropped', async () => {
    const { body, r } = reader();
    body.end(event({ n: 1 }) + 'data: {"n":2}\n');
    expect(await readAll(r)).toEqual({ chunks: [{ n: 1 }], last: { kind: 'end' } });
  });
});

describe('errors', () => {
  it('bad JSON is a SyntaxError, after the chunks before it', async () => {
    const { body, r } = reader();
    body.write(event({ n: 1 }) + 'data: {"n":\n\n' + event({ n: 2 }));
    const { chunks, last } = await readAll(r);
    expect(chunks).toEqual([{ n: 1 }]);
    expect(last.kind === 'error' && last.error).toBeInstanceOf(SyntaxError);
    r.close();
  });

  it('an error event becomes what errorEvent makes of it', async () => {
    const { body, r } = reader();
    body.write(event({ error: { message: 'overloaded', code: 'server_error' } }));
    expect(await readAll(r)).toEqual({ chunks: [], last: { kind: 'error', error: { provider: { message: 'overloaded', code: 'server_error' } } } });
    r.close();
  });

  it("the body's error, and a close before the end, end it as errors", async () => {
    const a = reader();
    a.body.write(event({ n: 1 }));
    const cut = new Error('socket hang up');
    setImmediate(() => a.body.destroy(cut));
    expect(await readAll(a.r)).toEqual({ chunks: [{ n: 1 }], last: { kind: 'error', error: cut } });
    a.r.close();

    const b = reader();
    setImmediate(() => b.body.destroy());
    const last = (await readAll(b.r)).last;
    expect(last.kind === 'error' && String(last.error)).toMatch(/closed before the answer ended/);
  });

  it('after close, a late error of the body is heard and goes nowhere', async () => {
    const { body, r } = reader();
    r.close();
    body.destroy(new Error('late'));
    await new Promise((res) => setImmediate(res));
    expect(body.listenerCount('error')).toBe(1);
  });
});

describe('abort and idle timeout', () => {
  afterEach(() => jest.useRealTimers());

  it('an abort ends a wait, and wins over chunks already there', async () => {
    const ac = new AbortController();
    const { body, r } = reader({ signal: ac.signal });
    const waiting = r.next();
    ac.abort();
    expect(await waiting).toEqual({ kind: 'abort' });
    body.write(event({ n: 1 }));
    await new Promise((res) => setImmediate(res));
    expect(await r.next()).toEqual({ kind: 'abort' });
    r.close();
  });

  it('counts only the time a caller waits', async () => {
    jest.useFakeTimers();
    const { body, r } = reader({ idleMs: 1000 });
    let first = r.next();
    jest.advanceTimersByTime(900);
    body.write(event({ n: 1 }));
    await Promise.resolve();
    expect(await first).toEqual({ kind: 'chunks', chunks: [{ n: 1 }] });
    // The caller spends 5 s on that chunk: not the model's silence.
    jest.advanceTimersByTime(5000);
    let settled: SseRead | undefined;
    first = r.next().then((x) => (settled = x));
    jest.advanceTimersByTime(999);
    await Promise.resolve();
    expect(settled).toBeUndefined();
    jest.advanceTimersByTime(1);
    await first;
    expect(settled).toEqual({ kind: 'timeout' });
    r.close();
  });
});
