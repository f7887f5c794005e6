/**
 * PlatformError: classification, fallback for unclassified errors, operator-facing descriptions.
 */
import { asPlatformError, describeSurfaced, isPlatformError, PlatformError } from '../../../src/adapters/contract/errors';

describe('PlatformError', () => {
  it('carries its classification and code', () => {
    const e = new PlatformError('telegram', { kind: 'retry', retryAfterMs: 3000, scope: 'chat' }, 'Too Many Requests', { code: 429 });
    expect(e.kind).toBe('retry');
    expect(e.code).toBe(429);
    expect(isPlatformError(e)).toBe(true);
    expect(e).toBeInstanceOf(Error);
  });

  it('treats unclassified failures as bounded retries, keeping the cause', () => {
    const cause = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const e = asPlatformError(cause, 'slack');
    expect(e.classification).toEqual({ kind: 'retry' });
    expect(e.code).toBe('ECONNRESET');
    expect(e.cause).toBe(cause);
    expect(asPlatformError(e)).toBe(e);
    expect(asPlatformError('weird').message).toBe('weird');
  });

  it('describes surfaced errors for the operator without stack traces', () => {
    const text = describeSurfaced(new PlatformError('discord', { kind: 'surface', reason: 'auth' }, '401: Unauthorized'));
    expect(text).toBe('the discord token was rejected; the operator must fix it');
    expect(describeSurfaced(new PlatformError('telegram', { kind: 'surface', reason: 'blocked' }, 'Forbidden: bot was blocked by the user'))).toMatch(/blocked the bot/);
  });
});
