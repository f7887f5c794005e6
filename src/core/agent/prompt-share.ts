/**
 * One agent's system prompts, held as a shared head plus each session's own rest. Sessions of an agent
 * differ only where their prompts name the session (workspace, session id, date), so the longest prefix a
 * prompt has in common with the agent's reference prompt is kept once, and a session keeps its own copy of
 * the remainder. `text()` concatenates on every read: V8 keeps `head + rest` as two references until the
 * result is flattened, so a caller that uses the text and lets it go never pins a full copy to a session.
 * `tokens` is the prompt's estimate (engine.md §3), the head's counts taken once, so sizing a session's
 * context does not build and scan its prompt.
 */
import { withLazy } from '../lazy-property';
import { textCounts, tokensOfCounts, type TextCounts } from '../omnimessage/tokens';

export interface HeldPrompt {
  readonly length: number;
  /** Estimated tokens of the whole prompt. */
  readonly tokens: number;
  /** The whole prompt, built anew on each call: use it, do not keep it. */
  text(): string;
}

/** Below this much shared text a prompt is kept whole (nothing worth sharing). */
const MIN_SHARED = 256;

/** A copy that does not point into `s`'s parent string (a slice of a flat string does). */
const detached = (s: string): string => (s.length < 16 ? s : (JSON.parse(JSON.stringify(s)) as string));

/** The length `a` and `b` have in common from the start, given that the first `from` characters are. */
function commonPrefix(a: string, b: string, from = 0): number {
  const n = Math.min(a.length, b.length);
  let i = from;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

export class PromptShare {
  private reference = '';
  /** The shared head found last: most prompts of an agent start with it (a native comparison). */
  private lastHead = '';
  /** Counts of the reference's first `counted.length` characters. */
  private counted: { length: number; counts: TextCounts } | undefined;

  hold(text: string): HeldPrompt {
    const known = this.lastHead !== '' && text.startsWith(this.lastHead) ? this.lastHead.length : 0;
    const shared = commonPrefix(this.reference, text, known);
    if (shared < MIN_SHARED || shared < text.length / 2) {
      // A prompt unlike the reference (an edited AGENTS.md, another template) becomes the reference.
      this.reference = text;
      this.lastHead = '';
      this.counted = undefined;
      return whole(text);
    }
    const head = this.reference.slice(0, shared);
    if (shared < this.lastHead.length || this.lastHead === '') this.lastHead = head;
    const rest = detached(text.slice(shared));
    if (this.counted?.length !== shared) this.counted = { length: shared, counts: textCounts(head) };
    const own = textCounts(rest);
    const tokens = tokensOfCounts({ ascii: this.counted.counts.ascii + own.ascii, other: this.counted.counts.other + own.other });
    return { length: text.length, tokens, text: () => head + rest };
  }
}

const whole = (text: string): HeldPrompt => ({ length: text.length, tokens: tokensOfCounts(textCounts(text)), text: () => text });

/**
 * A copy of `meta` with its `system_prompt` read through `prompt` (an enumerable accessor in the same key
 * position, so JSON and spreads see the plain text): the session_meta a session keeps does not pin its prompt.
 */
export function withHeldPrompt<M extends { payload: { system_prompt: string } }>(meta: M, prompt: HeldPrompt): M {
  return { ...meta, payload: withLazy(meta.payload, 'system_prompt', () => prompt.text()) };
}
