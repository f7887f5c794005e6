/** Failure classification order (engine.md §3) on the SDK's real error classes and Node/undici-shaped causes. */
import { APIConnectionError, APIConnectionTimeoutError, APIError, AuthenticationError } from 'openai';
import { classifyError, describeError } from '../../../src/core/llm/classify';

const connect = { phase: 'connect' as const, fastMode: false };
const body = { phase: 'body' as const, fastMode: false };
const apiError = (status: number, error: Record<string, unknown> = { message: `status ${status}` }) => APIError.generate(status, { error }, undefined, new Headers());
const withCause = (message: string, cause: unknown) => Object.assign(new Error(message), { cause });
const coded = (message: string, code: string) => Object.assign(new Error(message), { code });

test.each([
  ['401', apiError(401), 'auth'],
  ['AuthenticationError by class', new AuthenticationError(401, undefined, 'nope', new Headers()), 'auth'],
  ['an auth code on another status', apiError(400, { message: 'bad key', code: 'invalid_api_key' }), 'auth'],
  ['a bare 403', apiError(403), 'failed'],
  ['429', apiError(429), 'timeout'],
  ['408', apiError(408), 'timeout'],
  ['502', apiError(502), 'timeout'],
  ['400', apiError(400), 'failed'],
  ['404', apiError(404), 'failed'],
  ['APIConnectionError', new APIConnectionError({ message: undefined, cause: withCause('fetch failed', coded('connect ECONNREFUSED 127.0.0.1:9', 'ECONNREFUSED')) }), 'timeout'],
  ['APIConnectionTimeoutError', new APIConnectionTimeoutError(), 'timeout'],
  ['ECONNRESET deep in the cause chain', withCause('outer', withCause('middle', coded('read ECONNRESET', 'ECONNRESET'))), 'timeout'],
  ['an undici code', withCause('fetch failed', coded('other side closed', 'UND_ERR_SOCKET')), 'timeout'],
  ['timeout words', new Error('upstream request timed out'), 'timeout'],
  ['rate-limit words', new Error('Rate limit exceeded, slow down'), 'timeout'],
  ['anything else', new Error('something odd'), 'failed'],
  ['a non-error value', 'weird', 'failed'],
])('before the body: %s ⇒ %s', (_label, err, status) => {
  expect(classifyError(err, connect).status).toBe(status);
});

test('in the body, a broken stream is malformed even when its cause is a socket error', () => {
  const cut = withCause('terminated', coded('other side closed', 'UND_ERR_SOCKET'));
  expect(classifyError(cut, body)).toEqual({ status: 'malformed', errorMessage: 'stream cut: terminated (other side closed)' });
  expect(classifyError(new SyntaxError('Unexpected end of JSON input'), body).status).toBe('malformed');
});

test('in the body, a provider error event is classified by its content', () => {
  expect(classifyError(new APIError(undefined, { message: 'Invalid API key', code: 'invalid_api_key' }, undefined, undefined), body).status).toBe('auth');
  expect(classifyError(new APIError(undefined, { message: 'busy', code: 503 }, undefined, undefined), body).status).toBe('timeout');
  expect(classifyError(new APIError(undefined, { message: 'nope' }, undefined, undefined), body).status).toBe('failed');
});

test('auth outranks transport; parse errors outrank auth', () => {
  expect(classifyError(withCause('401 rate limit words', Object.assign(new Error('x'), { status: 401 })), connect).status).toBe('auth');
  expect(classifyError(withCause('wrapped', new SyntaxError('bad json')), connect).status).toBe('malformed');
});

test('a 4xx naming service_tier is a permanent failure only when fast mode was requested', () => {
  const err = apiError(400, { message: 'service_tier "priority" is not available for this model', param: 'service_tier' });
  expect(classifyError(err, { phase: 'connect', fastMode: true })).toMatchObject({ status: 'failed', permanent: true });
  expect(classifyError(err, connect)).toEqual({ status: 'failed', errorMessage: expect.any(String) });
  expect(classifyError(apiError(429, { message: 'priority tier rate limited' }), { phase: 'connect', fastMode: true }).status).toBe('timeout');
});

test('describeError adds the innermost cause', () => {
  expect(describeError(withCause('Connection error.', withCause('fetch failed', coded('connect ECONNREFUSED 127.0.0.1:9', 'ECONNREFUSED'))))).toBe('Connection error. (connect ECONNREFUSED 127.0.0.1:9)');
  expect(describeError(new Error('plain'))).toBe('plain');
});
