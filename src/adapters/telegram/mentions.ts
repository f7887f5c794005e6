/**
 * Was the bot addressed in a group message, and the text without the bot's handle. Addressed means: an
 * `@botusername` mention (or a text_mention of the bot), a /command for this bot or for no bot in
 * particular, or a reply to one of the bot's messages. Entity offsets are UTF-16 units, as JS strings index.
 * Stripping removes the mention (and one space next to it) and the `@botusername` suffix of commands.
 */

export interface EntityLike {
  type: string;
  offset: number;
  length: number;
  user?: { id: number };
}

export interface BotIdentity {
  id: number;
  username: string;
}

export interface Addressing {
  /** The bot was mentioned by handle or by a /command (not counting replies). */
  mentioned: boolean;
  /** The text with the bot's handle removed. */
  text: string;
}

const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);

export function addressing(text: string, entities: readonly EntityLike[] | undefined, bot: BotIdentity): Addressing {
  const handle = `@${bot.username}`.toLowerCase();
  const cuts: Array<[number, number]> = [];
  let mentioned = false;
  for (const e of entities ?? []) {
    const piece = text.slice(e.offset, e.offset + e.length);
    if (e.type === 'mention' && piece.toLowerCase() === handle) {
      mentioned = true;
      cuts.push([e.offset, e.offset + e.length]);
    } else if (e.type === 'text_mention' && e.user?.id === bot.id) {
      mentioned = true;
    } else if (e.type === 'bot_command') {
      const at = piece.indexOf('@');
      if (at < 0) mentioned = true;
      else if (piece.slice(at).toLowerCase() === handle) {
        mentioned = true;
        cuts.push([e.offset + at, e.offset + e.length]);
      }
    }
  }
  return { mentioned, text: cutOut(text, cuts) };
}

/** Removes the ranges (a mention standing alone between spaces takes one of them along). */
function cutOut(text: string, cuts: Array<[number, number]>): string {
  if (cuts.length === 0) return text;
  let out = text;
  for (const [start, end0] of [...cuts].sort((a, b) => b[0] - a[0])) {
    let end = end0;
    if ((start === 0 || isSpace(out[start - 1])) && isSpace(out[end])) end++;
    out = out.slice(0, start) + out.slice(end);
  }
  return out.trim();
}
