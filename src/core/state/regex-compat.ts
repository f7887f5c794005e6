/**
 * Compiles command-policy patterns (JavaScript regex source, no flags). Patterns written by newer
 * PenguinHarness builds may use inline modifier groups `(?i:…)` / `(?-i:…)`, which Node 20's regex engine
 * rejects; those groups are rewritten into plain groups whose letters are spelled in both cases, which
 * matches the same strings. Anything else that fails to compile is reported as a SyntaxError.
 */

function bothCases(ch: string): string {
  const lo = ch.toLowerCase();
  const up = ch.toUpperCase();
  return lo === up ? ch : `${lo}${up}`;
}

const isLetter = (ch: string) => ch.toLowerCase() !== ch.toUpperCase();

/** Length of the escape sequence starting at `i` (which holds the backslash). */
function escapeLength(src: string, i: number): number {
  const c = src[i + 1];
  if (c === undefined) return 1;
  if (c === 'u' && src[i + 2] === '{') {
    const end = src.indexOf('}', i + 3);
    return end < 0 ? 2 : end - i + 1;
  }
  if ((c === 'p' || c === 'P') && src[i + 2] === '{') {
    const end = src.indexOf('}', i + 3);
    return end < 0 ? 2 : end - i + 1;
  }
  if (c === 'k' && src[i + 2] === '<') {
    const end = src.indexOf('>', i + 3);
    return end < 0 ? 2 : end - i + 1;
  }
  if (c === 'u' && /^[0-9a-fA-F]{4}$/.test(src.slice(i + 2, i + 6))) return 6;
  if (c === 'x' && /^[0-9a-fA-F]{2}$/.test(src.slice(i + 2, i + 4))) return 4;
  if (c === 'c' && /^[A-Za-z]$/.test(src[i + 2] ?? '')) return 3;
  return 2;
}

/** A character class body `[...]` starting at `i`; returns the rewritten class and the index after it. */
function rewriteClass(src: string, i: number, ci: boolean): { text: string; next: number } {
  let j = i + 1;
  let head = '[';
  if (src[j] === '^') {
    head += '^';
    j++;
  }
  const items: string[] = [];
  const extra: string[] = [];
  while (j < src.length && src[j] !== ']') {
    if (src[j] === '\\') {
      const len = escapeLength(src, j);
      items.push(src.slice(j, j + len));
      j += len;
      continue;
    }
    const ch = src[j];
    if (src[j + 1] === '-' && src[j + 2] !== undefined && src[j + 2] !== ']' && src[j + 2] !== '\\') {
      const to = src[j + 2];
      items.push(`${ch}-${to}`);
      if (ci && isLetter(ch) && isLetter(to)) {
        const sameLower = ch === ch.toLowerCase() && to === to.toLowerCase();
        const sameUpper = ch === ch.toUpperCase() && to === to.toUpperCase();
        if (sameLower) extra.push(`${ch.toUpperCase()}-${to.toUpperCase()}`);
        else if (sameUpper) extra.push(`${ch.toLowerCase()}-${to.toLowerCase()}`);
      }
      j += 3;
      continue;
    }
    items.push(ci && isLetter(ch) ? bothCases(ch) : ch);
    j++;
  }
  return { text: `${head}${items.join('')}${extra.join('')}]`, next: j + 1 };
}

/** Rewrites `(?i:…)` / `(?-i:…)` groups; the result has no inline modifiers. */
export function downlevelInlineModifiers(src: string): string {
  let out = '';
  const stack: boolean[] = [];
  let ci = false;
  let i = 0;
  while (i < src.length) {
    const ch = src[i];
    if (ch === '\\') {
      const len = escapeLength(src, i);
      out += src.slice(i, i + len);
      i += len;
      continue;
    }
    if (ch === '[') {
      const { text, next } = rewriteClass(src, i, ci);
      out += text;
      i = next;
      continue;
    }
    if (ch === '(') {
      stack.push(ci);
      const mod = /^\(\?(-?)i:/.exec(src.slice(i));
      if (mod) {
        ci = mod[1] !== '-';
        out += '(?:';
        i += mod[0].length;
        continue;
      }
      const named = /^\(\?<([A-Za-z_$][\w$]*)>/.exec(src.slice(i));
      if (named) {
        out += named[0];
        i += named[0].length;
        continue;
      }
      const special = /^\(\?(?:<=|<!|[:=!])/.exec(src.slice(i));
      const tok = special ? special[0] : '(';
      out += tok;
      i += tok.length;
      continue;
    }
    if (ch === ')') {
      ci = stack.pop() ?? false;
      out += ch;
      i++;
      continue;
    }
    if (ch === '{') {
      // Quantifier braces hold digits and commas only; copy them verbatim.
      const q = /^\{\d+(?:,\d*)?\}/.exec(src.slice(i));
      if (q) {
        out += q[0];
        i += q[0].length;
        continue;
      }
    }
    out += ci && isLetter(ch) ? `[${bothCases(ch)}]` : ch;
    i++;
  }
  return out;
}

/** A RegExp for a policy pattern (no flags); throws SyntaxError when it cannot be compiled. */
export function compilePolicyPattern(pattern: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch (err) {
    if (!/\(\?-?i:/.test(pattern)) throw err;
    return new RegExp(downlevelInlineModifiers(pattern));
  }
}
