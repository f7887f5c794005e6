/**
 * Slack Web API error replies. Slack answers method errors with HTTP 200 and `{ ok:false, error, ... }`
 * (extra fields such as `needed`/`provided` or `errors[]` beside `error`, human hints in
 * `response_metadata.messages`); only rate limiting uses HTTP 429 (+ `Retry-After`). Handlers throw
 * `SlackApiError`; `slackErrors` builds the codes Slack uses, and tests pass them to `failNext`.
 */

export class SlackApiError extends Error {
  constructor(
    readonly error: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(error);
    this.name = 'SlackApiError';
  }

  body(): Record<string, unknown> & { ok: false; error: string } {
    return { ok: false, error: this.error, ...structuredClone(this.extra) };
  }
}

const withMessages = (error: string, messages: string[], extra: Record<string, unknown> = {}): SlackApiError =>
  new SlackApiError(error, { ...extra, response_metadata: { messages: messages.map((m) => `[ERROR] ${m}`) } });

export const slackErrors = {
  notAuthed: () => new SlackApiError('not_authed'),
  invalidAuth: () => new SlackApiError('invalid_auth'),
  accountInactive: () => new SlackApiError('account_inactive'),
  tokenRevoked: () => new SlackApiError('token_revoked'),
  notAllowedTokenType: () => new SlackApiError('not_allowed_token_type'),
  missingScope: (needed: string, provided: string[]) => new SlackApiError('missing_scope', { needed, provided: provided.join(',') }),
  unknownMethod: (method: string) => new SlackApiError('unknown_method', { req_method: method }),
  invalidArguments: (...messages: string[]) => withMessages('invalid_arguments', messages),
  channelNotFound: () => new SlackApiError('channel_not_found'),
  notInChannel: () => new SlackApiError('not_in_channel'),
  isArchived: () => new SlackApiError('is_archived'),
  userNotFound: () => new SlackApiError('user_not_found'),
  userNotInChannel: () => new SlackApiError('user_not_in_channel'),
  messageNotFound: () => new SlackApiError('message_not_found'),
  cantUpdateMessage: () => new SlackApiError('cant_update_message'),
  cantDeleteMessage: () => new SlackApiError('cant_delete_message'),
  noText: () => new SlackApiError('no_text'),
  msgTooLong: () => new SlackApiError('msg_too_long'),
  markdownTextConflict: () => new SlackApiError('markdown_text_conflict'),
  streamingStateConflict: () => new SlackApiError('streaming_state_conflict'),
  invalidBlocksFormat: () => new SlackApiError('invalid_blocks_format'),
  invalidBlocks: (errors: string[]) => withMessages('invalid_blocks', errors, { errors }),
  msgBlocksTooLong: () => new SlackApiError('msg_blocks_too_long'),
  invalidMetadataFormat: () => new SlackApiError('invalid_metadata_format'),
  alreadyReacted: () => new SlackApiError('already_reacted'),
  invalidName: () => new SlackApiError('invalid_name'),
  missingRecipientUserId: () => new SlackApiError('missing_recipient_user_id'),
  missingRecipientTeamId: () => new SlackApiError('missing_recipient_team_id'),
  notInStreamingState: () => new SlackApiError('message_not_in_streaming_state'),
  missingArgument: () => new SlackApiError('missing_argument'),
  fileNotFound: () => new SlackApiError('file_not_found'),
  invalidChannel: () => new SlackApiError('invalid_channel'),
  ratelimited: () => new SlackApiError('ratelimited'),
  internalError: () => new SlackApiError('internal_error'),
};
