/**
 * classifySlackError: any failure of a Web API call (@slack/web-api's platform, rate-limited, HTTP and
 * request errors, or anything else) as one PlatformError (platforms.md "Retry vs surface"): 429 / 5xx /
 * network / Slack's internal errors → retry (429 with Retry-After, pausing the method's workspace budget);
 * too long → degrade and re-split; refused blocks → degrade to plain text; a message gone → post anew; a
 * stream Slack refuses → degrade to post + update; auth, missing scopes (naming the scope), channels the bot
 * cannot reach and deactivated workspaces → surface to the operator. Unknown errors retry a bounded number of times.
 */
import { PlatformError, thrownMessage, type ErrorClassification } from '../contract/errors';

/** The shape of @slack/web-api errors this classifier reads (its error classes satisfy it). */
interface SdkError {
  code?: unknown;
  data?: { error?: unknown; needed?: unknown; errors?: unknown; response_metadata?: { messages?: unknown } };
  retryAfter?: unknown;
  statusCode?: unknown;
  headers?: Record<string, unknown>;
}

const AUTH = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired', 'not_allowed_token_type', 'team_access_not_granted', 'ekm_access_denied', 'org_login_required']);
const PERMISSION = new Set(['missing_scope', 'no_permission', 'not_in_channel', 'channel_not_found', 'is_archived', 'restricted_action', 'restricted_action_read_only_channel', 'restricted_action_thread_only_channel', 'restricted_action_non_threadable_channel', 'user_not_in_channel', 'access_denied', 'team_not_found']);
const GONE = new Set(['message_not_found', 'cant_update_message', 'cant_delete_message', 'thread_not_found', 'edit_window_closed']);
const TOO_LONG = new Set(['msg_too_long', 'msg_blocks_too_long', 'too_many_attachments', 'markdown_text_too_long']);
const FORMAT = new Set(['invalid_blocks_format', 'markdown_text_conflict', 'invalid_attachments']);
const RETRY = new Set(['ratelimited', 'rate_limited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout', 'timeout']);
const INVALID = new Set(['invalid_arguments', 'invalid_channel', 'invalid_ts', 'invalid_thread_ts', 'no_text', 'invalid_name', 'user_not_found']);
/** Stream methods Slack does not offer here, or refuses for this conversation: the writer posts and updates instead. */
const STREAM_REFUSED = new Set(['unknown_method', 'method_deprecated', 'not_allowed', 'feature_not_enabled', 'not_enabled', 'missing_recipient_user_id', 'missing_recipient_team_id', 'message_not_in_streaming_state', 'streaming_state_conflict', 'invalid_arguments', 'user_not_found', 'not_supported']);
const IGNORE = new Set(['already_reacted', 'no_reaction']);
const STREAM_METHODS = new Set(['chat.startStream', 'chat.appendStream', 'chat.stopStream']);

/** invalid_blocks names what was wrong: a length or count → re-split, anything else → plain text. */
function blocksProblem(data: SdkError['data']): ErrorClassification {
  const errors = Array.isArray(data?.errors) ? data!.errors.map(String) : [];
  const lengthy = errors.some((e) => /less than \d+ characters|no more than \d+ items/.test(e));
  return lengthy ? { kind: 'degrade', reason: 'too_long' } : { kind: 'degrade', reason: 'format' };
}

/** The classification of a Slack `ok: false` error code, for the method that got it. */
export function classifySlackCode(code: string, method: string | undefined, data?: SdkError['data']): ErrorClassification {
  if (method && STREAM_METHODS.has(method) && STREAM_REFUSED.has(code)) return { kind: 'degrade', reason: 'draft_unsupported' };
  if (RETRY.has(code)) return code === 'ratelimited' || code === 'rate_limited' ? { kind: 'retry', scope: 'method' } : { kind: 'retry' };
  if (AUTH.has(code)) return { kind: 'surface', reason: 'auth' };
  if (PERMISSION.has(code)) return { kind: 'surface', reason: 'permission' };
  if (GONE.has(code)) return { kind: 'degrade', reason: 'gone' };
  if (TOO_LONG.has(code)) return { kind: 'degrade', reason: 'too_long' };
  if (code === 'invalid_blocks') return blocksProblem(data);
  if (FORMAT.has(code)) return { kind: 'degrade', reason: 'format' };
  if (IGNORE.has(code)) return { kind: 'ignore', reason: 'already_acknowledged' };
  if (INVALID.has(code)) return { kind: 'surface', reason: 'invalid_request' };
  return { kind: 'retry' };
}

const where = (method: string | undefined) => (method ? `${method}: ` : '');

function fromSdk(e: SdkError, err: unknown, method: string | undefined): PlatformError | undefined {
  switch (e.code) {
    case 'slack_webapi_platform_error': {
      const code = typeof e.data?.error === 'string' ? e.data.error : 'unknown_error';
      const needed = typeof e.data?.needed === 'string' ? ` (the app needs the ${e.data.needed} scope)` : '';
      return new PlatformError('slack', classifySlackCode(code, method, e.data), `${where(method)}${code}${needed}`, { code, cause: err });
    }
    case 'slack_webapi_rate_limited_error': {
      const s = typeof e.retryAfter === 'number' && e.retryAfter >= 0 ? e.retryAfter : undefined;
      const c: ErrorClassification = s === undefined ? { kind: 'retry', scope: 'method' } : { kind: 'retry', retryAfterMs: Math.round(s * 1000), scope: 'method' };
      return new PlatformError('slack', c, `${where(method)}rate limited${s === undefined ? '' : ` for ${s} s`}`, { code: 429, cause: err });
    }
    case 'slack_webapi_http_error': {
      const status = typeof e.statusCode === 'number' ? e.statusCode : 0;
      const c: ErrorClassification = status >= 500 || status === 429 || status === 408 ? { kind: 'retry' } : { kind: 'surface', reason: 'invalid_request' };
      return new PlatformError('slack', c, `${where(method)}HTTP ${status} from the Slack API`, { code: status, cause: err });
    }
    case 'slack_webapi_request_error':
      return new PlatformError('slack', { kind: 'retry' }, `${where(method)}could not reach the Slack API (${thrownMessage(err)})`, { code: 'network', cause: err });
    default:
      return undefined;
  }
}

/** Maps anything a Slack call threw to a classified PlatformError (PlatformErrors pass through). */
export function classifySlackError(err: unknown, method?: string): PlatformError {
  if (err instanceof PlatformError) return err;
  try {
    const known = err !== null && typeof err === 'object' ? fromSdk(err as SdkError, err, method) : undefined;
    return known ?? new PlatformError('slack', { kind: 'retry' }, `${where(method)}${thrownMessage(err)}`, { cause: err });
  } catch {
    // a value whose fields cannot even be read (a hostile proxy): still a bounded retry, never a throw
    return new PlatformError('slack', { kind: 'retry' }, `${where(method)}an unreadable error`);
  }
}

/** Runs a Web API call; whatever it throws leaves as a classified PlatformError naming the method. */
export async function slackCall<T>(method: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw classifySlackError(err, method);
  }
}
