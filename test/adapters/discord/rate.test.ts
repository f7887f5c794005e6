/**
 * Rate scopes from headers, without a network: which REST calls belong to which bucket, how a learned
 * bucket becomes a governor limit that never admits more than Discord's limit in any window (checked
 * against the real TokenBucket over random request times), and buckets shared through one hash.
 */
import fc from 'fast-check';
import { RateBook, governorLimit, routeOf, SEED_SHAPE } from '../../../src/adapters/discord/rate';
import { TokenBucket } from '../../../src/adapters/render/token-bucket';

const headers = (h: Record<string, string>) => (name: string) => h[name] ?? null;

describe('RateBook', () => {
  it('names the route kind and channel of each REST call', () => {
    const api = 'http://127.0.0.1:1/api/v10';
    expect(routeOf('POST', `${api}/channels/11/messages`)).toEqual({ kind: 'create', major: '11' });
    expect(routeOf('PATCH', `${api}/channels/11/messages/22`)).toEqual({ kind: 'edit', major: '11' });
    expect(routeOf('DELETE', `${api}/channels/11/messages/22`)).toEqual({ kind: 'delete', major: '11' });
    expect(routeOf('POST', `${api}/channels/11/typing`)).toEqual({ kind: 'typing', major: '11' });
    expect(routeOf('PUT', `${api}/channels/11/messages/22/reactions/%F0%9F%91%80/@me`)).toEqual({ kind: 'reaction', major: '11' });
    expect(routeOf('POST', `${api}/channels/11/messages/22/threads`)).toEqual({ kind: 'thread', major: '11' });
    expect(routeOf('PATCH', `${api}/webhooks/1/tok/messages/@original`)).toEqual({ kind: 'webhook', major: 'webhook' });
    expect(routeOf('GET', `${api}/gateway/bot`)).toBeUndefined();
  });

  it('learns limit and window per bucket, and routes sharing a hash share one scope', () => {
    const book = new RateBook();
    expect(book.shapeOf('create')).toEqual(SEED_SHAPE);
    book.observe('POST', 'https://discord.com/api/v10/channels/7/messages', headers({ 'x-ratelimit-limit': '10', 'x-ratelimit-reset-after': '8.0', 'x-ratelimit-bucket': 'abc' }));
    book.observe('PATCH', 'https://discord.com/api/v10/channels/7/messages/9', headers({ 'x-ratelimit-limit': '10', 'x-ratelimit-reset-after': '3.5', 'x-ratelimit-bucket': 'abc' }));
    expect(book.shapeOf('create')).toEqual({ limit: 10, windowMs: 8000 });
    const post = book.scopes('42', '7', 'post');
    const edit = book.scopes('42', '7', 'edit');
    expect(post[1].key).toBe('discord:42:abc:7');
    expect(edit[1].key).toBe(post[1].key);
    // one bucket, one limit: the create bucket's burst gives way to the edits sharing it
    expect(post[1].limit).toEqual(governorLimit({ limit: 10, windowMs: 8000 }, 1));
    expect(edit[1].limit).toEqual(post[1].limit);
    expect(book.scopes('42', '7', 'typing')[1].limit).toEqual(governorLimit(SEED_SHAPE, 3));
    expect(book.scopes('42', '8', 'post')[1].key).toBe('discord:42:abc:8');
    expect(book.scopes('42', '7', 'typing')[1].key).toBe('discord:42:typing:7');
    book.observe('GET', 'https://discord.com/api/v10/channels/7', headers({ 'x-ratelimit-limit': '1' }));
    expect(book.shapeOf('create')).toEqual({ limit: 10, windowMs: 8000 });
  });

  it('turns a bucket into a governor limit that never admits more than the limit in any window, whatever the burst', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 100, max: 60_000 }), fc.integer({ min: 1, max: 50 }), fc.array(fc.integer({ min: 0, max: 200_000 }), { minLength: 1, maxLength: 300 }), (limit, windowMs, burst, times) => {
        const l = governorLimit({ limit, windowMs }, burst);
        if (l.burst > limit) return false;
        const bucket = new TokenBucket('k', l, 0);
        const admitted: number[] = [];
        for (const t of [...times].sort((a, b) => a - b)) {
          if (bucket.level(t) >= 1 - 1e-6) {
            bucket.take(t);
            admitted.push(t);
          }
        }
        // any window of windowMs (aligned anywhere) holds at most `limit` admitted requests
        return admitted.every((start, i) => admitted.filter((t, j) => j >= i && t < start + windowMs).length <= limit);
      }),
      { numRuns: 300 },
    );
  });
});
