/**
 * Reads YAML text into plain data while keeping the document, so any key path can be mapped back to a
 * line and column for error messages. Syntax errors (and duplicate keys) come back as ConfigErrors with
 * their position; an empty document is an empty mapping.
 */
import { LineCounter, isMap, isScalar, parseDocument, type Document } from 'yaml';
import { makeError, type ConfigError, type PathSegment } from './errors';

export interface YamlSource {
  data: unknown;
  locate: (path: readonly PathSegment[], key?: boolean) => { line: number; column: number } | undefined;
}

export function parseYamlSource(text: string, source: string): { ok: true; value: YamlSource } | { ok: false; errors: ConfigError[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.map((e) => {
        const pos = lineCounter.linePos(e.pos[0]);
        return makeError({
          source,
          path: '(syntax)',
          expected: 'valid YAML',
          found: firstLine(e.message),
          line: pos.line,
          column: pos.col,
        });
      }),
    };
  }
  const data = doc.contents === null ? {} : doc.toJS({ maxAliasCount: 100 });
  return { ok: true, value: { data, locate: (path, key) => locate(doc, lineCounter, path, key) } };
}

function firstLine(msg: string): string {
  // yaml appends " at line N, column M:" plus a source excerpt; the position is reported separately.
  return msg.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}

function locate(doc: Document, lc: LineCounter, path: readonly PathSegment[], key?: boolean): { line: number; column: number } | undefined {
  // Walk as far as the document goes: a missing key reports the position of its nearest parent.
  for (let n = path.length; n >= 0; n--) {
    const sub = path.slice(0, n);
    let range: readonly number[] | null | undefined;
    if (key && n === path.length && n > 0) {
      const parent = sub.length > 1 ? doc.getIn(sub.slice(0, -1), true) : doc.contents;
      if (isMap(parent)) {
        const pair = parent.items.find((p) => isScalar(p.key) && String(p.key.value) === String(sub[sub.length - 1]));
        if (pair && isScalar(pair.key)) range = pair.key.range;
      }
    } else {
      const node = n === 0 ? doc.contents : doc.getIn(sub, true);
      if (node && typeof node === 'object' && 'range' in node) range = (node as { range?: readonly number[] | null }).range;
    }
    if (range) {
      const p = lc.linePos(range[0]);
      return { line: p.line, column: p.col };
    }
  }
  return undefined;
}
