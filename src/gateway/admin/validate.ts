/**
 * Boundary validation for the admin API: queries, bodies and path parameters go through zod, and a
 * failure becomes a 400 `bad_request` whose message names each bad field (`query.limit: expected …`).
 * Also the shared query field schemas (integers, times, dates) so every route reads them alike. Routes
 * build their schemas at first use (`lazySchema`): a gateway whose admin API is not called holds none.
 */
import * as z from 'zod';
import { badRequest } from './errors';

export type Where = 'query' | 'body' | 'path';

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v);
  if (Array.isArray(v)) return 'a list';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'an object' : String(v);
}

function at(value: unknown, path: readonly PropertyKey[]): unknown {
  let cur = value;
  for (const k of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[k];
  }
  return cur;
}

/** A schema made by `build` at its first use and kept from then on. */
export function lazySchema<S extends z.ZodType>(build: () => S): () => S {
  let schema: S | undefined;
  return () => (schema ??= build());
}

export function parseInput<S extends z.ZodType>(schema: S | (() => S), value: unknown, where: Where): z.output<S> {
  const r = (typeof schema === 'function' ? schema() : schema).safeParse(value);
  if (r.success) return r.data;
  const parts = r.error.issues.map((i) => {
    if (i.code === 'unrecognized_keys') return `${where}: unknown field${i.keys.length > 1 ? 's' : ''} ${i.keys.map((k) => JSON.stringify(k)).join(', ')}`;
    const field = [where, ...i.path.map(String)].join('.');
    const msg = i.message.startsWith('expected ') ? i.message : `expected ${i.message}`;
    return `${field}: ${msg}, found ${describe(at(value, i.path))}`;
  });
  // A value can fail several checks of one field with the same message; say it once.
  throw badRequest([...new Set(parts)].join('; '));
}

/** A decimal integer in a query string, within bounds. */
export const queryInt = (min: number, max: number) =>
  z
    .string({ error: `expected an integer ${min}-${max}` })
    .regex(/^\d{1,15}$/, { error: `expected an integer ${min}-${max}` })
    .transform(Number)
    .refine((n) => n >= min && n <= max, { error: `expected an integer ${min}-${max}` });

/** A real calendar day: `Date.parse` rolls 2026-02-31 over to March 3 instead of refusing it. */
export function isCalendarDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

/** An instant: epoch milliseconds or an ISO 8601 date/time; becomes epoch ms. */
export const queryTime = () =>
  z
    .string({ error: 'expected epoch milliseconds or an ISO 8601 date/time' })
    .transform((s, ctx) => {
      const n = /^\d{1,15}$/.test(s) ? Number(s) : /^\d{4}-\d{2}-\d{2}/.test(s) && isCalendarDate(s) ? Date.parse(s) : NaN;
      if (Number.isNaN(n)) {
        ctx.addIssue({ code: 'custom', message: 'expected epoch milliseconds or an ISO 8601 date/time' });
        return z.NEVER;
      }
      return n;
    });

/** A calendar date `YYYY-MM-DD`. */
export const queryDate = () =>
  z
    .string({ error: 'expected a date YYYY-MM-DD' })
    .regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'expected a date YYYY-MM-DD', abort: true })
    .refine((s) => isCalendarDate(s), { error: 'expected a real calendar date YYYY-MM-DD' });

export const queryText = (what: string) => z.string({ error: `expected ${what}` }).min(1, { error: `expected ${what}` }).max(256, { error: `expected ${what} (at most 256 characters)` });
