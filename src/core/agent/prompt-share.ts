/**
 * One agent's system prompts, held as a shared head plus each session's own rest. Sessions of an agent
 * differ only where their prompts name the session (workspace, session id, date), so the longest prefix a
 * prompt has in common with the agent's reference prompt is kept once, and a session keeps its own copy of
 * the remainder. `text()` concatenates on every read: V8 keeps `head + rest` as two references until the
 * result is flattened, so a caller that uses the text and lets it go never pins a full copy to a session.
 * `tokens` is the prompt's estimate (engine.md §3), the head's counts taken once, so sizing a session's
 * context does not build and scan its prompt. `json()` is its JSON with the head's part encoded once per
 * agent: the session_meta line and every model request carry the prompt without escaping it again.
 * `holdHalves` takes a prompt already split where its sessions differ (an assembly compiled once per agent),
 * so the head is neither searched for nor copied.
 */
import { attachJson, type JsonPiece } from '../json-splice';
import { withLazy } from '../lazy-property';
import { textCounts, tokensOfCounts, type TextCounts } from '../omnimessage/tokens';

/** A prompt as the head its agent's sessions share (the same string each time) and the session's rest. */
export interface PromptHalves {
  head: string;
  rest: string;
}

export interface HeldPrompt {
  readonly length: number;
  /** Estimated tokens of the whole prompt. */
  readonly tokens: number;
  /** The whole prompt, built anew on each call: use it, do not keep it. */
  text(): string;
  /** `JSON.stringify(text())` as pieces, the shared head's part encoded once per agent: use them, do not keep them. */
  json(): readonly JsonPiece[];
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
  // Never between the halves of a surrogate pair: the head and the rest are each escaped as JSON alone.
  if (i > 0 && i < b.length) {
    const c = b.charCodeAt(i - 1);
    if (c >= 0xd800 && c <= 0xdbff) i--;
  }
  return i;
}

/** `JSON.stringify(s)` as UTF-8 without its closing quote, and the rest's without its opening one. */
const openJson = (s: string): Buffer => Buffer.from(JSON.stringify(s).slice(0, -1), 'utf8');
const closeJson = (s: string): string => JSON.stringify(s).slice(1);

/**
 * What is known of the reference's first `length` characters: their counts, and (once asked) their JSON.
 * Heads differ by a character or two from session to session (random ids that happen to start alike), so
 * one known head serves every longer one, the part between read on the spot.
 */
interface KnownHead {
  reference: string;
  length: number;
  counts: TextCounts;
  json?: Buffer;
}

/** Whether `k` is a head of `reference` that a prompt sharing `shared` characters with it starts with. */
const fits = (k: KnownHead | undefined, reference: string, shared: number): k is KnownHead => k !== undefined && k.reference === reference && k.length <= shared;

export class PromptShare {
  private reference = '';
  /** The shared head found last: most prompts of an agent start with it (a native comparison). */
  private lastHead = '';
  private known: KnownHead | undefined;

  hold(text: string): HeldPrompt {
    const known = this.lastHead !== '' && text.startsWith(this.lastHead) ? this.lastHead.length : 0;
    const shared = commonPrefix(this.reference, text, known);
    if (shared < MIN_SHARED || shared < text.length / 2) {
      // A prompt unlike the reference (an edited AGENTS.md, another template) becomes the reference.
      this.reference = text;
      this.lastHead = '';
      this.known = undefined;
      return whole(text);
    }
    const head = this.reference.slice(0, shared);
    if (shared < this.lastHead.length || this.lastHead === '') this.lastHead = head;
    return this.heldOn(shared, detached(text.slice(shared)));
  }

  /** `hold(head + rest)` for a prompt whose head is known to be shared (no search; a new head becomes the reference). */
  holdHalves({ head, rest }: PromptHalves): HeldPrompt {
    // A head ending in half a surrogate pair is left to hold(), which never parts a pair.
    const last = head.charCodeAt(head.length - 1);
    if (head.length < MIN_SHARED || head.length < rest.length || (last >= 0xd800 && last <= 0xdbff)) return this.hold(head + rest);
    // The same string object every time, or (another agent's files, a new day) a comparison of flat texts.
    if (head !== this.reference) {
      this.reference = head;
      this.lastHead = head;
      this.known = undefined;
    }
    return this.heldOn(head.length, rest);
  }

  /** The prompt made of the reference's first `shared` characters and `rest`. */
  private heldOn(shared: number, rest: string): HeldPrompt {
    const reference = this.reference;
    const head = reference.slice(0, shared);
    const k = this.knownHead(shared);
    const between = reference.slice(k.length, shared);
    const own = textCounts(between + rest);
    const tokens = tokensOfCounts({ ascii: k.counts.ascii + own.ascii, other: k.counts.other + own.other });
    return {
      length: shared + rest.length,
      tokens,
      text: () => head + rest,
      json: () => {
        // The known head of this prompt's reference, if it is still the share's; else this head alone.
        const now = this.known;
        if (!fits(now, reference, shared)) return [openJson(head), closeJson(rest)];
        now.json ??= openJson(reference.slice(0, now.length));
        return [now.json, closeJson(reference.slice(now.length, shared) + rest)];
      },
    };
  }

  /** The known head for a prompt sharing `shared` characters with the reference (made or shortened to fit). */
  private knownHead(shared: number): KnownHead {
    const k = this.known;
    if (fits(k, this.reference, shared)) return k;
    this.known = { reference: this.reference, length: shared, counts: textCounts(this.reference.slice(0, shared)) };
    return this.known;
  }
}

const whole = (text: string): HeldPrompt => ({
  length: text.length,
  tokens: tokensOfCounts(textCounts(text)),
  text: () => text,
  json: () => [JSON.stringify(text)],
});

/**
 * A copy of `meta` with its `system_prompt` read through `prompt` (an enumerable accessor in the same key
 * position, so JSON and spreads see the plain text): the session_meta a session keeps does not pin its prompt.
 */
export function withHeldPrompt<M extends { payload: { system_prompt: string } }>(meta: M, prompt: HeldPrompt): M {
  const payload = attachJson(withLazy(meta.payload, 'system_prompt', () => prompt.text()), 'system_prompt', () => prompt.json());
  return { ...meta, payload };
}
