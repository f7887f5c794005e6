/**
 * SecretRedactor: whole secrets masked (never by a longer mask), the longest of overlapping secrets wins,
 * short values ignored, deep redaction of JSON values, and the streaming guarantee: what a growing text
 * shows never includes any part of a secret and is always a prefix of what the complete text shows.
 */
import fc from 'fast-check';
import { REDACTION_MARK, SecretRedactor } from '../../../src/adapters/render/redactor';

const r = new SecretRedactor();
r.add(['sk-live-0123456789abcdef', 'hunter22', 'no', undefined, null, '   ', 'sk-live-0123456789abcdef-long-suffix']);

test('masks whole secrets, longest first, with a mask never longer than the secret', () => {
  expect(r.size).toBe(3);
  expect(r.redact('key=sk-live-0123456789abcdef!')).toBe(`key=${REDACTION_MARK}!`);
  expect(r.redact('pw hunter22 pw')).toBe('pw ******** pw');
  expect(r.redact('x sk-live-0123456789abcdef-long-suffix y')).toBe(`x ${REDACTION_MARK} y`);
  expect(r.redact('no, nothing here')).toBe('no, nothing here');
});

test('redacts every string inside a JSON value', () => {
  expect(r.redactDeep({ a: ['hunter22', 1, null], b: { c: 'sk-live-0123456789abcdef' } })).toEqual({ a: ['********', 1, null], b: { c: REDACTION_MARK } });
});

test('a growing text never shows part of a secret, and each view is a prefix of the final one', () => {
  const secrets = fc.array(fc.stringMatching(/^[a-z0-9_-]{6,24}$/), { minLength: 1, maxLength: 4 });
  fc.assert(
    fc.property(secrets, fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('SECRET0', 'SECRET1', 'SECRET2', 'SECRET3')), { maxLength: 12 }), (list, parts) => {
      const red = new SecretRedactor();
      red.add(list);
      const text = parts.map((p) => (/^SECRET\d$/.test(p) ? list[Number(p[6]) % list.length] : p)).join('');
      const final = red.redact(text);
      if (list.some((s) => final.includes(s))) return false;
      for (let i = 0; i <= text.length; i++) {
        const view = red.redactLive(text.slice(0, i));
        if (!final.startsWith(view)) return false;
        if (list.some((s) => view.includes(s) || [...Array(s.length - 1).keys()].some((k) => view.endsWith(s.slice(0, k + 1))))) return false;
      }
      return true;
    }),
    { numRuns: 200 },
  );
});
