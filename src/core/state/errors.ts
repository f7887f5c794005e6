/**
 * Typed errors for state files: every problem names the file, the key path, what was expected and what was
 * found, so an operator can fix a hand-edited file without reading code. Loaders return `StateResult`
 * (never a half-valid value, never a throw); zod issues and YAML/TOML syntax errors are both mapped here.
 */
import type * as z from 'zod';

export interface StateIssue {
  /** Dotted key path inside the file (`model.thinking_level`, `models[1].pricing.unit`); '' = the file itself. */
  path: string;
  expected: string;
  found: string;
}

export interface StateFileError {
  file: string;
  kind: 'syntax' | 'invalid' | 'io';
  issues: StateIssue[];
  /** One line per issue: `<file>: <path>: expected <…>, found <…>`. */
  message: string;
}

export type StateResult<T> = { ok: true; value: T } | { ok: false; error: StateFileError };

export const ok = <T>(value: T): StateResult<T> => ({ ok: true, value });

export function fileError(file: string, kind: StateFileError['kind'], issues: StateIssue[]): StateFileError {
  const message = issues.map((i) => `${file}: ${i.path || '(file)'}: expected ${i.expected}, found ${i.found}`).join('\n');
  return { file, kind, issues, message };
}

export function fail<T>(file: string, kind: StateFileError['kind'], issues: StateIssue[]): StateResult<T> {
  return { ok: false, error: fileError(file, kind, issues) };
}

/** `a.b[2].c` from a zod/issue path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out;
}

/** A short, type-tagged rendering of a found value. */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing (the key is missing)';
  if (v === null) return 'null';
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) return 'an invalid date';
    const toml = v as unknown as { isLocal?: () => boolean };
    const local = typeof toml.isLocal === 'function' && toml.isLocal();
    return local ? `local date/time ${v.toISOString()} (no zone)` : `date ${v.toISOString()}`;
  }
  if (typeof v === 'string') return `string ${JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v)}`;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return `${typeof v} ${String(v)}`;
  if (Array.isArray(v)) return `a list of ${v.length} item${v.length === 1 ? '' : 's'}`;
  if (typeof v === 'object') {
    const keys = Object.keys(v as object);
    return keys.length ? `a table with keys ${keys.slice(0, 8).join(', ')}${keys.length > 8 ? ', …' : ''}` : 'an empty table';
  }
  return typeof v;
}

export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[seg as string];
  }
  return cur;
}

const TYPE_NAMES: Record<string, string> = { object: 'a table', array: 'a list', date: 'a date', int: 'an integer', number: 'a number' };

/** The keys an object schema accepts at `path` (best effort through optional/default/array wrappers). */
function allowedKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] | undefined {
  let cur: unknown = schema;
  const unwrap = (s: unknown): unknown => {
    let x = s as { _zod?: { def?: { type?: string; innerType?: unknown; in?: unknown } } };
    for (let i = 0; i < 10 && x?._zod?.def; i++) {
      const d = x._zod.def;
      if ((d.type === 'optional' || d.type === 'default' || d.type === 'nullable' || d.type === 'prefault') && d.innerType) x = d.innerType as typeof x;
      else if (d.type === 'pipe' && d.in) x = d.in as typeof x;
      else break;
    }
    return x;
  };
  for (const seg of path) {
    cur = unwrap(cur);
    const def = (cur as { _zod?: { def?: { type?: string; shape?: Record<string, unknown>; element?: unknown } } })?._zod?.def;
    if (!def) return undefined;
    if (def.type === 'object' && typeof seg === 'string' && def.shape) cur = def.shape[seg];
    else if (def.type === 'array' && typeof seg === 'number') cur = def.element;
    else return undefined;
  }
  const def = (unwrap(cur) as { _zod?: { def?: { type?: string; shape?: Record<string, unknown> } } })?._zod?.def;
  return def?.type === 'object' && def.shape ? Object.keys(def.shape) : undefined;
}

/** zod issues → StateIssues, reading the found value from the raw input. */
export function issuesFromZod(error: z.ZodError, raw: unknown, schema: z.ZodType, pathPrefix: readonly PropertyKey[] = []): StateIssue[] {
  const out: StateIssue[] = [];
  for (const issue of error.issues) {
    const path = [...pathPrefix, ...issue.path];
    const found = describeValue(valueAt(raw, issue.path));
    switch (issue.code) {
      case 'unrecognized_keys': {
        const allowed = allowedKeysAt(schema, issue.path);
        for (const key of issue.keys) {
          out.push({
            path: formatPath([...path, key]),
            expected: `a known key${allowed ? ` (allowed here: ${allowed.join(', ')})` : ''}`,
            found: `unknown key ${JSON.stringify(key)}`,
          });
        }
        break;
      }
      case 'invalid_type':
        out.push({ path: formatPath(path), expected: TYPE_NAMES[issue.expected] ?? `a ${issue.expected}`, found });
        break;
      case 'invalid_value':
        out.push({ path: formatPath(path), expected: `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`, found });
        break;
      case 'too_small':
      case 'too_big': {
        const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum;
        const op = issue.code === 'too_small' ? (issue.inclusive ? '>=' : '>') : issue.inclusive ? '<=' : '<';
        const what = issue.origin === 'string' ? 'a string with length' : issue.origin === 'array' ? 'a list with length' : 'a number';
        out.push({ path: formatPath(path), expected: `${what} ${op} ${String(bound)}`, found });
        break;
      }
      case 'invalid_format':
        out.push({ path: formatPath(path), expected: issue.format === 'regex' && 'pattern' in issue ? `text matching ${String(issue.pattern)}` : `a valid ${issue.format}`, found });
        break;
      case 'not_multiple_of':
        out.push({ path: formatPath(path), expected: `a multiple of ${String(issue.divisor)}`, found });
        break;
      default:
        out.push({ path: formatPath(path), expected: issue.message, found });
    }
  }
  return out;
}

/** First line of a parser message, without the code frame the parsers append. */
export function firstLine(message: string): string {
  return message.split('\n')[0].trim().replace(/:$/, '');
}
