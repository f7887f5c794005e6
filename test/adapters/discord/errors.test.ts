/**
 * The Discord error classifier on its own: Discord's JSON codes and HTTP statuses map to one class each
 * (platforms.md "Retry vs surface"), a 429 body's retry_after becomes a delay in ms scoped to the channel or
 * the whole bot, and non-Discord failures (a rejected token at login, a network error) are classified too.
 */
import { classifyApiError, classifyDiscordError } from '../../../src/adapters/discord/errors';

describe('classifyApiError', () => {
  it.each([
    [429, 0, { retry_after: 1.25, global: false }, { kind: 'retry', retryAfterMs: 1250, scope: 'chat' }],
    [429, 0, { retry_after: 0.5, global: true }, { kind: 'retry', retryAfterMs: 500, scope: 'account' }],
    [502, 0, {}, { kind: 'retry' }],
    [401, 0, {}, { kind: 'surface', reason: 'auth' }],
    [403, 50001, {}, { kind: 'surface', reason: 'permission' }],
    [403, 50013, {}, { kind: 'surface', reason: 'permission' }],
    [404, 10003, {}, { kind: 'surface', reason: 'permission' }],
    [403, 50007, {}, { kind: 'surface', reason: 'blocked' }],
    [404, 10008, {}, { kind: 'degrade', reason: 'gone' }],
    [400, 30046, {}, { kind: 'degrade', reason: 'gone' }],
    [400, 50083, {}, { kind: 'degrade', reason: 'gone' }],
    [404, 10015, {}, { kind: 'degrade', reason: 'gone' }],
    [401, 50027, {}, { kind: 'degrade', reason: 'gone' }],
    [401, 0, { message: '401: Unauthorized' }, { kind: 'surface', reason: 'auth' }],
    [400, 50035, { errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } } }, { kind: 'degrade', reason: 'too_long' }],
    [400, 50035, { errors: { components: { _errors: [{ code: 'BASE_TYPE_BAD_LENGTH' }] } } }, { kind: 'surface', reason: 'invalid_request' }],
    [400, 40060, {}, { kind: 'ignore', reason: 'already_acknowledged' }],
    [404, 10062, {}, { kind: 'ignore', reason: 'query_too_old' }],
    [429, 30034, { retry_after: 3600 }, { kind: 'retry', retryAfterMs: 3_600_000, scope: 'chat' }],
    [400, 12345, {}, { kind: 'retry' }],
  ])('HTTP %i code %i → %j', (status, code, raw, want) => {
    expect(classifyApiError(status, code, raw)).toEqual(want);
  });
});

describe('classifyDiscordError', () => {
  it('classifies failures that are not Discord answers', () => {
    expect(classifyDiscordError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toMatchObject({ classification: { kind: 'retry' }, code: 'ECONNRESET' });
    const once = classifyDiscordError('weird');
    expect(classifyDiscordError(once)).toBe(once);
  });
});
