/** randomHex: n bytes as 2n hex digits, every id distinct across many refills of its pool, bad sizes refused. */
import { randomHex } from '../../src/core/random-hex';

test('gives 2n lowercase hex digits for n bytes', () => {
  for (const n of [1, 4, 6, 32, 4096]) expect(randomHex(n)).toMatch(new RegExp(`^[0-9a-f]{${2 * n}}$`));
});

test('ids stay distinct across many refills of the pool', () => {
  const seen = new Set<string>();
  // 8-byte ids: a repeat among 20,000 would mean bytes handed out twice, not chance (p ≈ 1e-11).
  for (let i = 0; i < 20_000; i++) seen.add(randomHex(8));
  expect(seen.size).toBe(20_000);
});

test('every digit value turns up', () => {
  const digits = new Set(randomHex(512));
  expect(digits.size).toBe(16);
});

test.each([0, -1, 1.5, 4097, Number.NaN])('refuses %p bytes', (n) => {
  expect(() => randomHex(n)).toThrow(RangeError);
});
