/**
 * Display width of short strings for aligning table columns in monospace: East Asian wide/fullwidth
 * characters and emoji take two cells, combining marks and zero-width joiners none, everything else one.
 */

const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{1f680}-\u{1f6ff}\u{20000}-\u{3fffd}]/u;
const ZERO = /[\u0300-\u036f\u200b-\u200f\u20d0-\u20ff\ufe00-\ufe0f]|\p{Mn}/u;

export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) {
    if (ZERO.test(ch)) continue;
    w += WIDE.test(ch) ? 2 : 1;
  }
  return w;
}

export function pad(s: string, width: number, align: 'left' | 'right' | 'center' | null): string {
  const gap = Math.max(0, width - displayWidth(s));
  if (align === 'right') return ' '.repeat(gap) + s;
  if (align === 'center') return ' '.repeat(gap >> 1) + s + ' '.repeat(gap - (gap >> 1));
  return s + ' '.repeat(gap);
}
