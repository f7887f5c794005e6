/**
 * Config errors as data: each names its source (the file, `environment` or `command line`), the key path
 * or variable, what was expected and what was found, so the CLI can print every problem at once and exit
 * non-zero before touching anything. `issuesToErrors` turns zod issues into these; a zod message written
 * as "expected …" is used verbatim as the expectation.
 */
import type * as z from 'zod';

export interface ConfigError {
  /** File shown as given (relative to cwd when inside it), or `environment` / `command line`. */
  source: string;
  /** Key path (`routes[1].approval_mode`), environment variable name, or `(root)`. */
  path: string;
  expected: string;
  found: string;
  /** 1-based position in the file, when known. */
  line?: number;
  column?: number;
  /** The whole line as printed. */
  message: string;
}

export type PathSegment = string | number;

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out === '' ? '(root)' : out;
}

/** A short, unambiguous rendering of a found value: strings quoted, containers by kind. */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v.length > 80 ? `${v.slice(0, 77)}...` : v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `a list of ${v.length}`;
  if (typeof v === 'object') return 'a mapping';
  return typeof v;
}

export function makeError(e: Omit<ConfigError, 'message'>): ConfigError {
  const where = e.line !== undefined ? ` (line ${e.line}${e.column !== undefined ? `, column ${e.column}` : ''})` : '';
  return { ...e, message: `${e.source}: ${e.path}: expected ${e.expected}, found ${e.found}${where}` };
}

export function formatConfigErrors(errors: readonly ConfigError[]): string {
  return errors.map((e) => e.message).join('\n');
}

/** The value at `path` in plain data, or undefined when any step is missing. */
export function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = data;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[seg];
  }
  return cur;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
};

function expectedOf(issue: z.core.$ZodIssue): string {
  if (issue.message.startsWith('expected ')) return issue.message.slice('expected '.length);
  switch (issue.code) {
    case 'invalid_type':
      return TYPE_NAMES[issue.expected] ?? issue.expected;
    case 'invalid_value':
      return issue.values.length === 1 ? JSON.stringify(issue.values[0]) : `one of ${issue.values.map(String).join('|')}`;
    case 'too_small':
      if (issue.origin === 'string') return `a non-empty string${Number(issue.minimum) > 1 ? ` of at least ${issue.minimum} characters` : ''}`;
      if (issue.origin === 'array') return `a list of at least ${issue.minimum}`;
      return `a number ${issue.inclusive ? '>=' : '>'} ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'string') return `a string of at most ${issue.maximum} characters`;
      if (issue.origin === 'array') return `a list of at most ${issue.maximum}`;
      return `a number ${issue.inclusive ? '<=' : '<'} ${issue.maximum}`;
    case 'invalid_format':
      return issue.format === 'url' ? 'a URL' : `a ${issue.format}`;
    default:
      return issue.message;
  }
}

export interface IssueContext {
  source: string;
  /** The raw input, for `found`. */
  data: unknown;
  /** Optional file position lookup for a key path (`key: true` asks for the key's own position). */
  locate?: (path: readonly PathSegment[], key?: boolean) => { line: number; column: number } | undefined;
  /** Known keys per mapping path, to list them when an unknown key is found. */
  knownKeys?: (path: readonly PathSegment[]) => string[] | undefined;
}

export function issuesToErrors(issues: readonly z.core.$ZodIssue[], ctx: IssueContext): ConfigError[] {
  const out: ConfigError[] = [];
  for (const issue of issues) {
    const base = issue.path.filter((s): s is PathSegment => typeof s === 'string' || typeof s === 'number');
    if (issue.code === 'unrecognized_keys') {
      const known = ctx.knownKeys?.(base);
      for (const key of issue.keys) {
        const path = [...base, key];
        out.push(
          makeError({
            source: ctx.source,
            path: formatPath(path),
            expected: known && known.length > 0 ? `one of the known keys (${known.join(', ')})` : 'no key here',
            found: `unknown key "${key}"`,
            ...ctx.locate?.(path, true),
          }),
        );
      }
      continue;
    }
    out.push(
      makeError({
        source: ctx.source,
        path: formatPath(base),
        expected: expectedOf(issue),
        found: describeValue(valueAt(ctx.data, base)),
        ...ctx.locate?.(base),
      }),
    );
  }
  return out;
}
