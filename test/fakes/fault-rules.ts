/**
 * The rule book behind every fake's `failNext`: "the next N matching calls answer X". Rules are
 * consumed in the order they were added; each spec's `times` (default 1) is how many calls it takes.
 * What a rule matches (method and chat, route and major id…) and what X can be are the platform's:
 * it passes the matcher and owns the spec and outcome types.
 */

/** The least a fault spec carries: how many calls it takes, and what they answer. */
export interface FaultSpecBase {
  times?: number;
  with: unknown;
}

export class FaultRules<Spec extends FaultSpecBase, Call> {
  private rules: Array<{ spec: Spec; remaining: number }> = [];

  constructor(private readonly matches: (spec: Spec, call: Call) => boolean) {}

  add(spec: Spec): void {
    this.rules.push({ spec: { ...spec }, remaining: spec.times ?? 1 });
  }

  /** The outcome for this call if a rule matches, consuming one use of it. */
  take(call: Call): Spec['with'] | undefined {
    const i = this.rules.findIndex((r) => this.matches(r.spec, call));
    if (i < 0) return undefined;
    const rule = this.rules[i];
    if (--rule.remaining <= 0) this.rules.splice(i, 1);
    return rule.spec.with;
  }

  /** Uses left across all rules. */
  get pending(): number {
    return this.rules.reduce((n, r) => n + r.remaining, 0);
  }

  clear(): void {
    this.rules = [];
  }
}
