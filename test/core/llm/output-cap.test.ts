/** The output-cap formula of engine.md §3 and the usage mapping. */
import { outputCap } from '../../../src/core/llm/output-cap';
import { usageToCounts } from '../../../src/core/llm/usage';

test.each([
  [32000, undefined, 99999, 32000],
  [32000, 128000, 10000, 32000],
  [32000, 40000, 10000, 40000 - 10000 - 1024],
  [32000, 8000, 7900, 512],
  [0, 128000, 0, undefined],
  [-1, 128000, 0, undefined],
  [undefined, 128000, 0, undefined],
  [4000, 0, 0, 4000],
])('outputCap(%p, window %p, input %p) = %p', (max, window, input, want) => {
  expect(outputCap(max, window, input)).toBe(want);
});

test('usage: cached prompt tokens are cache_read, the uncached rest cache_write, completion tokens output', () => {
  expect(usageToCounts({ prompt_tokens: 100, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 30 } })).toEqual({ cache_read: 30, cache_write: 70, output: 7, total: 107 });
  expect(usageToCounts({ prompt_tokens: 50, completion_tokens: 1, prompt_cache_hit_tokens: 20 })).toEqual({ cache_read: 20, cache_write: 30, output: 1, total: 51 });
  expect(usageToCounts({ prompt_tokens: null, completion_tokens: undefined })).toEqual({ cache_read: 0, cache_write: 0, output: 0, total: 0 });
});
