/**
 * Tool-call arguments at the boundary: parse the model's JSON text, then validate it against the tool's
 * zod schema (types, unknown keys) and the advertised JSON Schema's `required` list. Failures come back
 * as one readable message naming every problem and the expected parameters, for a `failed` output.
 * `null` values are read as "not given", since models often send null for optional parameters.
 */
import type * as z from 'zod';

export type ArgsResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** Parse the JSON object text of a tool call. Empty text means `{}`. */
export function parseArguments(toolName: string, text: string): ArgsResult<Record<string, unknown>> {
  if (text.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `Invalid arguments for ${toolName}: not valid JSON (${(err as Error).message}). Send a JSON object.` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return { ok: false, error: `Invalid arguments for ${toolName}: expected a JSON object, got ${got}.` };
  }
  const obj: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) obj[k] = v;
  return { ok: true, value: obj };
}

function describeIssue(issue: z.core.$ZodIssue, args: Record<string, unknown>): string[] {
  const where = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') return issue.keys.map((k) => `unexpected argument "${k}"`);
  if (issue.code === 'invalid_type' && issue.path.length === 1 && !(String(issue.path[0]) in args)) {
    return [`missing required argument "${where}"`];
  }
  if (issue.code === 'invalid_type') {
    const v = issue.path.reduce<unknown>((o, k) => (o as Record<PropertyKey, unknown> | undefined)?.[k as PropertyKey], args);
    const got = Array.isArray(v) ? 'array' : typeof v;
    return [`"${where}" must be ${issue.expected === 'int' ? 'an integer' : `a ${issue.expected}`} (got ${got})`];
  }
  return [`"${where || '(arguments)'}": ${issue.message}`];
}

/**
 * Validate parsed arguments. `required` is the advertised schema's required list (so a parameter the
 * model was told is required is enforced even when the implementation could do without it).
 */
export function validateArguments<T>(
  toolName: string,
  schema: z.ZodType<T>,
  args: Record<string, unknown>,
  required: readonly string[] = [],
  expected: readonly string[] = [],
): ArgsResult<T> {
  const problems: string[] = [];
  for (const key of required) if (!(key in args)) problems.push(`missing required argument "${key}"`);
  const parsed = schema.safeParse(args);
  if (parsed.success && problems.length === 0) return { ok: true, value: parsed.data };
  if (!parsed.success) for (const issue of parsed.error.issues) problems.push(...describeIssue(issue, args));
  const unique = [...new Set(problems)];
  const hint = expected.length ? `\nExpected parameters: ${expected.join(', ')}.` : '';
  return { ok: false, error: `Invalid arguments for ${toolName}:\n- ${unique.join('\n- ')}${hint}` };
}

/** `required` and property names of a `{type:"object", properties, required}` schema. */
export function schemaKeys(parameters: Record<string, unknown> | undefined): { required: string[]; properties: string[] } {
  const req = parameters?.required;
  const props = parameters?.properties;
  return {
    required: Array.isArray(req) ? req.filter((k): k is string => typeof k === 'string') : [],
    properties: props && typeof props === 'object' ? Object.keys(props) : [],
  };
}
