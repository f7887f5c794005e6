/**
 * Session titles (engine.md §9, §11): one bare model call over the conversation's start (user ≤2000 chars,
 * reply ≤1000), cleaned to one line of ≤30 characters; when the model gives nothing usable, the first line
 * of the user's text, cut to 30 characters.
 */
export const TITLE_MAX = 30;
const USER_MATERIAL = 2000;
const REPLY_MATERIAL = 1000;

const cut = (s: string, n: number): string => [...s].slice(0, n).join('').trim();

export function fallbackTitle(userText: string): string {
  const line = userText.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
  return cut(line.replace(/\s+/g, ' '), TITLE_MAX);
}

export function titlePrompt(userText: string, reply?: string): string {
  const parts = [
    `Write a title of at most ${TITLE_MAX} characters for the conversation below, in the language the user writes in.`,
    'Answer with the title alone: no quotes, no trailing punctuation, no explanation.',
    '',
    `User: ${cut(userText, USER_MATERIAL)}`,
  ];
  if (reply && reply.trim() !== '') parts.push(`Assistant: ${cut(reply, REPLY_MATERIAL)}`);
  return parts.join('\n');
}

/** The model's answer as a title, or '' when it is not usable. */
export function cleanTitle(raw: string): string {
  const line = raw.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
  // Non-ASCII characters are written as escapes: the gateway bundle must be ASCII (scripts/build-server.mjs).
  const t = line
    .replace(/^(title|titre|\u6807\u9898)\s*[:\uFF1A]\s*/i, '') // 标题, full-width colon
    .replace(/^[#*_`>\s-]+/, '')
    .replace(/[*_`]+$/, '')
    .replace(/^["'\u201C\u201D\u2018\u2019\u300C\u300D\u300E\u300F]+|["'\u201C\u201D\u2018\u2019\u300C\u300D\u300E\u300F]+$/g, '') // “”‘’「」『』
    .replace(/[.\u3002!\uFF01]+$/, '') // 。！
    .replace(/\s+/g, ' ')
    .trim();
  if ([...t].length <= TITLE_MAX) return t;
  // Too long: end at a word boundary when one is reasonably close to the limit.
  const hard = cut(t, TITLE_MAX);
  const space = [...t].slice(0, TITLE_MAX + 1).join('').lastIndexOf(' ');
  return space >= TITLE_MAX * 0.6 ? t.slice(0, space).trim() : hard;
}
