/**
 * Action payload codec: round-trips within 64 bytes, compact forms, encode validation, decode never throws.
 */
import fc from 'fast-check';
import { decodeActionPayload, encodeActionPayload, type ActionPayload } from '../../../src/adapters/contract/action-payload';
import { MIN_BUTTON_PAYLOAD_BYTES } from '../../../src/adapters/contract/limits';

const id = fc.string({ unit: fc.constantFrom(...'abcXYZ019_.-'.split('')), minLength: 1, maxLength: 48 });
const action: fc.Arbitrary<ActionPayload> = fc.oneof(
  fc.record({ kind: fc.constant('approval' as const), approvalId: id, verb: fc.constantFrom('allow' as const, 'deny' as const, 'session' as const) }),
  fc.record({ kind: fc.constant('stop' as const), taskId: id }),
  fc.record({ kind: fc.constant('continue' as const), continuationId: id }),
);

describe('action payload codec', () => {
  it('round-trips every valid action within Telegram’s 64 bytes', () => {
    expect(MIN_BUTTON_PAYLOAD_BYTES).toBe(64);
    fc.assert(
      fc.property(action, (a) => {
        const s = encodeActionPayload(a);
        expect(Buffer.byteLength(s)).toBeLessThanOrEqual(64);
        expect(decodeActionPayload(s)).toEqual({ ok: true, action: a });
      }),
      { seed: 64 },
    );
  });

  it('uses the compact documented forms', () => {
    expect(encodeActionPayload({ kind: 'approval', approvalId: 'ap_7Hx', verb: 'session' })).toBe('a:ap_7Hx:session');
    expect(encodeActionPayload({ kind: 'stop', taskId: 't1' })).toBe('s:t1');
    expect(encodeActionPayload({ kind: 'continue', continuationId: 'c9' })).toBe('c:c9');
  });

  it('refuses to encode ids that are too long or contain separators', () => {
    expect(() => encodeActionPayload({ kind: 'stop', taskId: 'x'.repeat(49) })).toThrow(/task id must be 1–48/);
    expect(() => encodeActionPayload({ kind: 'approval', approvalId: 'a:b', verb: 'allow' })).toThrow(/approval id/);
    expect(() => encodeActionPayload({ kind: 'approval', approvalId: 'ok', verb: 'maybe' as never })).toThrow(/verb must be one of/);
    expect(() => encodeActionPayload({ kind: 'stop', taskId: 'abc' }, 4)).toThrow(/5 bytes, the limit is 4/);
  });

  it('decodes untrusted payloads into named errors, never throwing', () => {
    expect(decodeActionPayload(42)).toEqual({ ok: false, error: expect.stringContaining('expected a string') });
    expect(decodeActionPayload('x:1')).toEqual({ ok: false, error: expect.stringContaining('unknown prefix "x"') });
    expect(decodeActionPayload('a:1')).toEqual({ ok: false, error: expect.stringContaining('a:<approvalId>:<verb>') });
    expect(decodeActionPayload('a:1:nuke')).toEqual({ ok: false, error: expect.stringContaining('verb must be one of') });
    expect(decodeActionPayload('s:' + 'y'.repeat(70))).toEqual({ ok: false, error: expect.stringContaining('longer than 64 bytes') });
    expect(decodeActionPayload('s:')).toEqual({ ok: false, error: expect.stringContaining('task id') });
    fc.assert(fc.property(fc.string(), (s) => { expect(() => decodeActionPayload(s)).not.toThrow(); }), { seed: 64 });
  });
});
