/**
 * Chat commands (gateway.md §3, §8): `/new`, `/stop`, `/mode <mode>`, `/status`, `/schedules`, `/help` (and
 * Telegram's `/start`), recognised at the start of an addressed message. Telegram's `/cmd@botname` form is accepted;
 * anything else starting with a slash is an ordinary message for the agent.
 */
export type ChatCommand =
  | { name: 'new' }
  | { name: 'stop' }
  | { name: 'mode'; arg: string }
  | { name: 'status' }
  | { name: 'schedules' }
  | { name: 'help' }
  | { name: 'start' };

const NAMES = new Set(['new', 'stop', 'mode', 'status', 'schedules', 'help', 'start']);

export function parseCommand(text: string): ChatCommand | undefined {
  const m = /^\/([a-z]+)(?:@[A-Za-z0-9_]+)?(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m || !NAMES.has(m[1])) return undefined;
  const arg = (m[2] ?? '').trim();
  if (m[1] === 'mode') return { name: 'mode', arg };
  return { name: m[1] } as ChatCommand;
}

export const HELP_TEXT = [
  'Talk to me in plain words; I can run tools in my workspace, asking before anything that changes things.',
  '`/new` — start a fresh session in this conversation',
  '`/stop` — stop what I am doing',
  '`/mode <allow-all|deny-all|read-only|always-ask>` — how tool calls are approved here',
  '`/status` — this conversation\'s session, mode and state',
  '`/schedules` — this agent\'s schedules and when each runs next',
].join('\n');
