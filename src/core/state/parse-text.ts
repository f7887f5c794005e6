/**
 * YAML and TOML text → plain data, with syntax errors reported as StateFileErrors (file, line, column).
 * YAML duplicate keys are syntax errors; TOML datetimes stay smol-toml `TomlDate`s (Date subclasses).
 * The strings of parsed YAML own their characters (`ownStrings`): as the parser leaves them, a block
 * scalar is a rope of one piece per line and every piece a slice that keeps the whole file text alive,
 * for as long as the agent's config is held (a 12 KB system prompt: ~7,000 pieces and the 42 KB file).
 */
import { parseToml, TomlError } from './toml';
import { parseDocument } from 'yaml';
import { fail, firstLine, ok, type StateResult } from './errors';

export function parseYamlText(text: string, file: string): StateResult<unknown> {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    return fail(file, 'syntax', doc.errors.map((e) => ({ path: '', expected: 'valid YAML', found: firstLine(e.message) })));
  }
  return ok(ownStrings(doc.toJS({ maxAliasCount: 100 }) as unknown));
}

/** `value` with each string replaced by a flat copy of it (arrays and plain objects in place). */
export function ownStrings(value: unknown): unknown {
  // A parsed string's copy: JSON.parse makes a new string of its own characters.
  if (typeof value === 'string') return JSON.parse(JSON.stringify(value)) as string;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = ownStrings(value[i]);
  } else if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const o = value as Record<string, unknown>;
    for (const k of Object.keys(o)) o[k] = ownStrings(o[k]);
  }
  return value;
}

export function parseTomlText(text: string, file: string): StateResult<Record<string, unknown>> {
  try {
    return ok(parseToml(text) as Record<string, unknown>);
  } catch (err) {
    if (err instanceof TomlError) {
      return fail(file, 'syntax', [{ path: '', expected: 'valid TOML', found: `${firstLine(err.message)} at line ${err.line}, column ${err.column}` }]);
    }
    return fail(file, 'syntax', [{ path: '', expected: 'valid TOML', found: firstLine(String((err as Error)?.message ?? err)) }]);
  }
}
