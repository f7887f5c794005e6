/**
 * Reusable ThreadRef contract: every adapter runs `describeThreadRefContract` with its platform, a few
 * real-looking refs, and optionally its own mapping between native SDK targets and ThreadRefs. It checks
 * that binding keys round-trip for fixed examples and for arbitrary ids (escaping of ":" "%", sentinels
 * "-" / "dm", non-ASCII), that keys have the documented shape, and that the native mapping round-trips.
 */
import fc from 'fast-check';
import { bindingKey, parseBindingKey, type Platform, type ThreadRef } from '../../../src/adapters/contract/thread-ref';

export interface ThreadRefContract<N = unknown> {
  platform: Platform;
  examples: ThreadRef[];
  /** Adapter mapping from a ThreadRef to what its SDK needs (channel + thread ids…) and back. */
  toNative?: (ref: ThreadRef) => N;
  fromNative?: (native: N) => ThreadRef;
  /** Arbitrary refs for this platform's id space (default: any non-empty well-formed string ids). */
  arbitrary?: fc.Arbitrary<ThreadRef>;
  runs?: number;
  /** fast-check seed (fixed so runs are deterministic). */
  seed?: number;
}

/** Ids with the characters that break naive codecs: separators, escapes, sentinels, non-BMP text. */
export const trickyId = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
    fc.constantFrom('-', 'dm', ':', '%', '%3A', '::', 'a:b', '-100123', '1712345678.123456', '😀', 'C%2', ' ', 'DM'),
    fc.string({ unit: fc.constantFrom(':', '%', '-', 'd', 'm', '/', ' ', '\u00e9', '\u{1f600}'), minLength: 1, maxLength: 6 }),
  );

export function arbitraryThreadRef(platform: Platform): fc.Arbitrary<ThreadRef> {
  const id = trickyId();
  switch (platform) {
    case 'slack':
      return fc.record({ platform: fc.constant('slack' as const), team: id, channel: id, threadTs: id });
    case 'discord':
      return fc.record({ platform: fc.constant('discord' as const), guild: fc.option(id, { nil: null }), channel: id, thread: fc.option(id, { nil: null }) });
    case 'telegram':
      return fc.record({ platform: fc.constant('telegram' as const), chat: id, topic: fc.option(id, { nil: null }) });
    case 'web':
      return fc.record({ platform: fc.constant('web' as const), conversation: id });
  }
}

const SHAPE: Record<Platform, RegExp> = {
  slack: /^slack:[^:]+:[^:]+:[^:]+$/,
  discord: /^discord:[^:]+:[^:]+:[^:]+$/,
  telegram: /^telegram:[^:]+:[^:]+$/,
  web: /^web:[^:]+$/,
};

export function describeThreadRefContract<N>(name: string, c: ThreadRefContract<N>): void {
  describe(`ThreadRef contract: ${name}`, () => {
    it('round-trips the examples through the binding key', () => {
      expect(c.examples.length).toBeGreaterThan(0);
      for (const ref of c.examples) {
        expect(ref.platform).toBe(c.platform);
        const key = bindingKey(ref);
        expect(key).toMatch(SHAPE[c.platform]);
        expect(parseBindingKey(key)).toEqual(ref);
        expect(bindingKey(parseBindingKey(key))).toBe(key);
      }
    });

    it('round-trips arbitrary ids (separators, escapes, sentinels, non-BMP)', () => {
      fc.assert(
        fc.property(c.arbitrary ?? arbitraryThreadRef(c.platform), (ref) => {
          const key = bindingKey(ref);
          expect(key).toMatch(SHAPE[c.platform]);
          expect(parseBindingKey(key)).toEqual(ref);
        }),
        { numRuns: c.runs ?? 300, seed: c.seed ?? 20260101 },
      );
    });

    it('distinct refs get distinct keys', () => {
      fc.assert(
        fc.property(c.arbitrary ?? arbitraryThreadRef(c.platform), c.arbitrary ?? arbitraryThreadRef(c.platform), (a, b) => {
          if (JSON.stringify(a) !== JSON.stringify(b)) expect(bindingKey(a)).not.toBe(bindingKey(b));
        }),
        { numRuns: c.runs ?? 300, seed: c.seed ?? 20260101 },
      );
    });

    if (c.toNative && c.fromNative) {
      const to = c.toNative;
      const from = c.fromNative;
      it('maps to the native target and back without loss', () => {
        for (const ref of c.examples) expect(from(to(ref))).toEqual(ref);
      });
    }
  });
}
