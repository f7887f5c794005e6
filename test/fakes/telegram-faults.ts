/**
 * Forced failures for the fake Bot API: "the next N calls of method M (for chat C) fail with X", where X
 * is a Bot API error (429 storm, 403 blocked, 5xx…), a raw non-JSON HTTP reply (a proxy's 502 page), or
 * a dropped connection. Rules are consumed in the order they were added; lookups are per method.
 */
import { TgApiError } from './telegram-errors';

export type FaultOutcome = TgApiError | { httpStatus: number; body?: string; contentType?: string } | 'disconnect';

export interface FaultSpec {
  method: string;
  /** Only calls whose chat_id equals this (number, or "@username"); any chat when absent. */
  chatId?: number | string;
  /** How many matching calls fail; default 1. */
  times?: number;
  with: FaultOutcome;
}

interface Rule {
  chatId?: number | string;
  remaining: number;
  outcome: FaultOutcome;
}

export class FaultInjector {
  private rules = new Map<string, Rule[]>();

  add(spec: FaultSpec): void {
    const key = spec.method.toLowerCase();
    const list = this.rules.get(key) ?? [];
    list.push({ chatId: spec.chatId, remaining: spec.times ?? 1, outcome: spec.with });
    this.rules.set(key, list);
  }

  /** The outcome for this call if a rule matches (consuming one use of it). */
  take(method: string, chatId: number | string | undefined): FaultOutcome | undefined {
    const list = this.rules.get(method.toLowerCase());
    if (!list) return undefined;
    const i = list.findIndex((r) => r.chatId === undefined || r.chatId === chatId);
    if (i < 0) return undefined;
    const rule = list[i];
    if (--rule.remaining <= 0) list.splice(i, 1);
    if (list.length === 0) this.rules.delete(method.toLowerCase());
    return rule.outcome;
  }

  /** Uses left across all rules. */
  get pending(): number {
    let n = 0;
    for (const list of this.rules.values()) for (const r of list) n += r.remaining;
    return n;
  }

  clear(): void {
    this.rules.clear();
  }
}

export const isApiError = (o: FaultOutcome): o is TgApiError => o instanceof TgApiError;
