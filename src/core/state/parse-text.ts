/**
 * YAML and TOML text → plain data, with syntax errors reported as StateFileErrors (file, line, column).
 * YAML duplicate keys are syntax errors; TOML datetimes stay smol-toml `TomlDate`s (Date subclasses).
 */
import { parseToml, TomlError } from './toml';
import { parseDocument } from 'yaml';
import { fail, firstLine, ok, type StateResult } from './errors';

export function parseYamlText(text: string, file: string): StateResult<unknown> {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    return fail(file, 'syntax', doc.errors.map((e) => ({ path: '', expected: 'valid YAML', found: firstLine(e.message) })));
  }
  return ok(doc.toJS({ maxAliasCount: 100 }) as unknown);
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
