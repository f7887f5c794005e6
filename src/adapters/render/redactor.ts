/**
 * SecretRedactor (gateway.md §6): masks known secret values (vault values, the gateway's own credentials)
 * in anything bound for a chat, a page, an API response or a log line. A mask is never longer than what
 * it hides, so text that was measured and split still fits. `redactLive` also holds back a trailing
 * partial secret of a text that is still streaming, so no edit ever shows the first half of a token.
 * Values shorter than MIN_SECRET_LENGTH are ignored: masking "1" or "yes" would mangle ordinary text.
 */
export const MIN_SECRET_LENGTH = 6;
export const REDACTION_MARK = '[redacted]';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export class SecretRedactor {
  private readonly secrets = new Set<string>();
  private pattern?: RegExp;
  private ordered: string[] = [];

  /** Adds secret values (idempotent); blank and short values are skipped. */
  add(values: Iterable<string | undefined | null>): void {
    let changed = false;
    for (const v of values) {
      if (typeof v !== 'string') continue;
      const s = v.trim();
      if (s.length < MIN_SECRET_LENGTH || this.secrets.has(s)) continue;
      this.secrets.add(s);
      changed = true;
    }
    if (!changed) return;
    // Longest first, so a secret that contains another is masked whole.
    this.ordered = [...this.secrets].sort((a, b) => b.length - a.length);
    this.pattern = new RegExp(this.ordered.map(escapeRegExp).join('|'), 'g');
  }

  get size(): number {
    return this.secrets.size;
  }

  redact(text: string): string {
    if (!this.pattern || text === '') return text;
    return text.replace(this.pattern, mask);
  }

  /**
   * For a text that may still grow: the tail that could be the start of a secret is held back (repeatedly:
   * cutting may leave another such tail), then whole secrets are masked. What this shows of a growing text
   * is therefore always a prefix of what it shows once the text is complete, so appends never need undoing.
   */
  redactLive(text: string): string {
    if (!this.pattern) return text;
    const end = this.keptLength(text);
    return this.redact(end === text.length ? text : text.slice(0, end));
  }

  /** How much of `text` a live view shows: without every trailing piece that could begin a secret. */
  private keptLength(text: string): number {
    let end = text.length;
    for (let cut = this.partialTail(text, end); cut > 0; cut = this.partialTail(text, end)) end -= cut;
    return end;
  }

  /** Length of the longest tail of `text` up to `end` that is a proper prefix of some secret (no slices: it runs on every streamed token). */
  private partialTail(text: string, end: number): number {
    let cut = 0;
    for (const s of this.ordered) {
      for (let k = Math.min(s.length - 1, end); k > cut; k--) {
        if (endsWithPrefix(text, end, s, k)) {
          cut = k;
          break;
        }
      }
    }
    return cut;
  }

  /** Every string inside a JSON-like value (API responses, transcripts), leaving the rest as is. */
  redactDeep<T>(value: T): T {
    if (!this.pattern) return value;
    return walk(value, (s) => this.redact(s)) as T;
  }
}

/** Whether text[end - k, end) equals the first k characters of `s`. */
function endsWithPrefix(text: string, end: number, s: string, k: number): boolean {
  const from = end - k;
  for (let i = k - 1; i >= 0; i--) if (text.charCodeAt(from + i) !== s.charCodeAt(i)) return false;
  return true;
}

function mask(secret: string): string {
  return secret.length >= REDACTION_MARK.length ? REDACTION_MARK : '*'.repeat(secret.length);
}

function walk(v: unknown, f: (s: string) => string): unknown {
  if (typeof v === 'string') return f(v);
  if (Array.isArray(v)) return v.map((x) => walk(x, f));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = walk(x, f);
    return out;
  }
  return v;
}
