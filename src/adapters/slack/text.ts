/**
 * Slack message text as the gateway reads it: the bot's own mention removed, Slack's markup undone (&amp;
 * &lt; &gt;, `<url|label>` links, `<#C…|name>` channels) and text commands after the mention — `new`,
 * `stop`, `status`, `help`, `mode [<mode>]` — turned into the gateway's `/new`, `/stop`, … (Slack keeps real
 * slash commands for itself, so users type them as words).
 */

const COMMAND = /^(new|stop|status|help)$/i;
const MODE = /^mode(?:\s+([A-Za-z-]+))?$/i;

/** `<@BOT>` and `<@BOT|name>` removed (one space next to a mention goes with it). */
export function stripBotMention(text: string, botUserId: string): { text: string; mentioned: boolean } {
  const tag = new RegExp(`\\s?<@${botUserId.replace(/[^A-Za-z0-9]/g, '')}(?:\\|[^>]*)?>\\s?`, 'g');
  let mentioned = false;
  const out = text.replace(tag, (m) => {
    mentioned = true;
    return m.startsWith(' ') && m.endsWith(' ') ? ' ' : '';
  });
  return { text: out.trim(), mentioned };
}

/** Slack's mrkdwn control sequences back to readable text. */
export function unescapeSlackText(text: string): string {
  return text
    .replace(/<((?:https?|mailto):[^|>]+)\|([^>]+)>/g, (_m, url: string, label: string) => (label === url ? url : `${label} (${url})`))
    .replace(/<((?:https?|mailto):[^|>]+)>/g, '$1')
    .replace(/<#([A-Z0-9]+)\|([^>]*)>/g, (_m, id: string, name: string) => `#${name || id}`)
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** "new" → "/new", "mode read-only" → "/mode read-only"; anything else unchanged. */
export function textCommand(text: string): string {
  const t = text.trim();
  if (COMMAND.test(t)) return `/${t.toLowerCase()}`;
  const m = MODE.exec(t);
  if (m) return m[1] ? `/mode ${m[1].toLowerCase()}` : '/mode';
  return text;
}
