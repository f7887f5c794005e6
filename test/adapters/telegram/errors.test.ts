/**
 * classifyTelegramError as a table: each Bot API failure the gateway meets (real descriptions, as grammY
 * reports them) maps to retry / ignore / degrade / surface, 429s carry retry_after in ms scoped to the chat,
 * network failures retry, and PlatformErrors pass through untouched.
 */
import { GrammyError, HttpError } from 'grammy';
import { PlatformError, type ErrorClassification } from '../../../src/adapters/contract/errors';
import { classifyTelegramError } from '../../../src/adapters/telegram/errors';

const api = (error_code: number, description: string, method = 'editMessageText', parameters: { retry_after?: number } = {}) =>
  new GrammyError(`Call to '${method}' failed! (${error_code}: ${description})`, { ok: false, error_code, description, parameters }, method, {});

const table: Array<[string, unknown, ErrorClassification]> = [
  ['429 with retry_after', api(429, 'Too Many Requests: retry after 7', 'sendMessage', { retry_after: 7 }), { kind: 'retry', retryAfterMs: 7_000, scope: 'chat' }],
  ['429 without retry_after', api(429, 'Too Many Requests'), { kind: 'retry', scope: 'chat' }],
  ['500', api(500, 'Internal Server Error'), { kind: 'retry' }],
  ['502 from a proxy', api(502, 'Bad Gateway'), { kind: 'retry' }],
  ['not modified', api(400, 'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message'), { kind: 'ignore', reason: 'not_modified' }],
  ['query too old', api(400, 'Bad Request: query is too old and response timeout expired or query ID is invalid', 'answerCallbackQuery'), { kind: 'ignore', reason: 'query_too_old' }],
  ["can't parse entities", api(400, "Bad Request: can't parse entities: Unsupported start tag \"foo\" at byte offset 0", 'sendMessage'), { kind: 'degrade', reason: 'format' }],
  ['message is too long', api(400, 'Bad Request: message is too long', 'sendMessage'), { kind: 'degrade', reason: 'too_long' }],
  ['message to edit not found', api(400, 'Bad Request: message to edit not found'), { kind: 'degrade', reason: 'gone' }],
  ['message to delete not found', api(400, 'Bad Request: message to delete not found', 'deleteMessage'), { kind: 'degrade', reason: 'gone' }],
  ["message can't be edited", api(400, "Bad Request: message can't be edited"), { kind: 'degrade', reason: 'gone' }],
  ['401', api(401, 'Unauthorized', 'getMe'), { kind: 'surface', reason: 'auth' }],
  ['403 blocked', api(403, 'Forbidden: bot was blocked by the user', 'sendMessage'), { kind: 'surface', reason: 'blocked' }],
  ['403 user deactivated', api(403, 'Forbidden: user is deactivated', 'sendMessage'), { kind: 'surface', reason: 'blocked' }],
  ['403 kicked', api(403, 'Forbidden: bot was kicked from the supergroup chat', 'sendMessage'), { kind: 'surface', reason: 'permission' }],
  ['403 not enough rights', api(403, 'Forbidden: not enough rights to send text messages to the chat', 'sendMessage'), { kind: 'surface', reason: 'permission' }],
  ['400 not enough rights', api(400, 'Bad Request: not enough rights to send text messages to the chat', 'sendMessage'), { kind: 'surface', reason: 'permission' }],
  ['chat not found', api(400, 'Bad Request: chat not found', 'sendMessage'), { kind: 'surface', reason: 'permission' }],
  ['draft refused in a group', api(400, 'Bad Request: TEXTDRAFT_PEER_INVALID', 'sendMessageDraft'), { kind: 'degrade', reason: 'draft_unsupported' }],
  ['draft method unknown to an old server', api(404, 'Not Found: method not found', 'sendMessageDraft'), { kind: 'degrade', reason: 'draft_unsupported' }],
  ['draft rate-limited still retries', api(429, 'Too Many Requests: retry after 2', 'sendMessageDraft', { retry_after: 2 }), { kind: 'retry', retryAfterMs: 2_000, scope: 'chat' }],
  ['draft to a user who blocked the bot', api(403, 'Forbidden: bot was blocked by the user', 'sendMessageDraft'), { kind: 'surface', reason: 'blocked' }],
  ['network failure', new HttpError("Network request for 'sendMessage' failed!", new Error('ECONNRESET')), { kind: 'retry' }],
  ['unknown error', new Error('socket hang up'), { kind: 'retry' }],
  ['structural API error (no grammY class)', { error_code: 400, description: 'Bad Request: message is not modified', method: 'editMessageText' }, { kind: 'ignore', reason: 'not_modified' }],
];

describe('classifyTelegramError', () => {
  it.each(table)('%s', (_name, err, expected) => {
    const e = classifyTelegramError(err);
    expect(e).toBeInstanceOf(PlatformError);
    expect(e.platform).toBe('telegram');
    expect(e.classification).toEqual(expected);
  });

  it('keeps the error code and names the method, without the token', () => {
    const e = classifyTelegramError(api(403, 'Forbidden: bot was blocked by the user', 'sendMessage'));
    expect(e.code).toBe(403);
    expect(e.message).toBe('sendMessage: 403 Forbidden: bot was blocked by the user');
  });

  it('passes PlatformErrors through unchanged', () => {
    const original = new PlatformError('telegram', { kind: 'degrade', reason: 'gone' }, 'x');
    expect(classifyTelegramError(original)).toBe(original);
  });
});
