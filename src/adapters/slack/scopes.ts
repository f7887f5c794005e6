/**
 * The bot token scopes the Slack adapter uses, each for the calls that need it; config/slack-manifest.yaml
 * requests exactly these, and `doctor` names any the installed app lacks (from auth.test's X-OAuth-Scopes).
 */
export const SLACK_BOT_SCOPES = {
  'app_mentions:read': 'app_mention events (mentions in channels)',
  'channels:history': 'message events in public channel threads (follow-ups without a mention)',
  'groups:history': 'message events in private channel threads',
  'im:history': 'message events in DMs and assistant threads',
  'mpim:history': 'message events in group DMs',
  'chat:write': 'posting, updating and streaming replies, ephemeral notices, the thinking status',
  'assistant:write': 'assistant threads: suggested prompts and titles',
  'reactions:write': 'the 👀 reaction on a message steered into a running task',
  'users:read': 'display names (users.info)',
  'files:read': 'downloading files people send (url_private)',
} as const;

export type SlackBotScope = keyof typeof SLACK_BOT_SCOPES;

/** The scopes of SLACK_BOT_SCOPES that `granted` (a comma-separated X-OAuth-Scopes value) lacks. */
export function missingScopes(granted: string): SlackBotScope[] {
  const have = new Set(granted.split(',').map((s) => s.trim()).filter(Boolean));
  return (Object.keys(SLACK_BOT_SCOPES) as SlackBotScope[]).filter((s) => !have.has(s));
}
