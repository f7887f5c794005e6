/**
 * Edits of a schedule file the operator asks for (enable, disable, approval mode): the `enabled` and
 * `approval_mode` lines are replaced (or appended) in place so comments and layout survive; the result must
 * parse to the same table with only those keys changed, else the file is rewritten from its parsed table.
 * The new text replaces the file atomically (a sibling temp file renamed over it).
 */
import { readFile } from 'node:fs/promises';
import { atomicWrite } from '../../core/state/files';
import { parseTomlText } from '../../core/state/parse-text';
import { stringifyToml } from '../../core/state/toml';

export type ScheduleKeyEdits = { enabled?: boolean; approval_mode?: string };

export type EditResult = { ok: true; text: string } | { ok: false; error: string };

const canonical = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (x instanceof Date ? x.toISOString() : x));

/** The text with `edits` applied, or why it could not be edited (the file does not parse). */
export function editScheduleText(text: string, file: string, edits: ScheduleKeyEdits): EditResult {
  const before = parseTomlText(text, file);
  if (!before.ok) return { ok: false, error: before.error.message };
  const wanted = { ...before.value, ...edits };
  let out = text;
  for (const [key, value] of Object.entries(edits) as [string, unknown][]) {
    if (value === undefined) continue;
    const line = stringifyToml({ [key]: value }).trim();
    const re = new RegExp(`^[ \\t]*${key}[ \\t]*=.*$`, 'm');
    out = re.test(out) ? out.replace(re, line) : `${out}${out === '' || out.endsWith('\n') ? '' : '\n'}${line}\n`;
  }
  const after = parseTomlText(out, file);
  if (after.ok && canonical(after.value) === canonical(wanted)) return { ok: true, text: out };
  // The key sat where a line edit cannot reach it safely (inside a multi-line string, an inline table…).
  return { ok: true, text: stringifyToml(wanted) };
}

export async function editScheduleFile(file: string, edits: ScheduleKeyEdits): Promise<EditResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    return { ok: false, error: `cannot read ${file}: ${(e as Error).message}` };
  }
  const r = editScheduleText(text, file, edits);
  if (!r.ok) return r;
  await atomicWrite(file, r.text);
  return r;
}
