/**
 * A `[[models]]` entry of `.project_config.toml` (engine.md §6.4) validated with zod, and how it resolves to a
 * connection: a blank `api_key` / `base_url` falls back to `OPENAI_API_KEY` / `OPENAI_BASE_URL`, because every
 * model this gateway speaks to is reached through an OpenAI-compatible endpoint. `(provider, model_id)` is the
 * identity and is never concatenated or inferred. `reasoning_effort` is this gateway's own optional flag
 * (absent = false): only entries that set it get the thinking level sent as `reasoning_effort`.
 */
import * as z from 'zod';

export const PricingSchema = z.object({
  unit: z.literal('usd_per_mtok'),
  cache_read: z.number().nonnegative(),
  cache_write: z.number().nonnegative(),
  output: z.number().nonnegative(),
});

/** A window given as a number or a string of digits (PenguinHarness writes either). */
const ContextWindow = z.union([
  z.number().int().positive(),
  z.string().regex(/^\d+$/, 'expected a positive integer').transform((s) => Number(s)),
]);

/** TOML datetimes arrive as Date objects (smol-toml); keep the ISO text either way. */
const Timestamp = z.union([z.string(), z.date().transform((d) => d.toISOString())]);

export const ModelEntrySchema = z.object({
  provider: z.string().trim().min(1, 'must not be empty'),
  model_id: z.string().trim().min(1, 'must not be empty'),
  context_window: ContextWindow.optional(),
  client_type: z.string().optional(),
  display_name: z.string().optional(),
  vision: z.boolean().default(true),
  max_tokens: z.number().int().optional(),
  fast_mode: z.boolean().optional(),
  pricing: PricingSchema.optional(),
  api_key: z.string().optional(),
  base_url: z.string().optional(),
  created_at: Timestamp.optional(),
  reasoning_effort: z.boolean().optional(),
});

export type ModelEntry = z.output<typeof ModelEntrySchema>;
export type ModelEntryInput = z.input<typeof ModelEntrySchema>;
export type ModelPricing = z.output<typeof PricingSchema>;

export type ModelEntryParse = { ok: true; entry: ModelEntry } | { ok: false; error: string };

/** Validate one raw entry; `where` names it in the error (e.g. `models[2]` of a file). */
export function parseModelEntry(raw: unknown, where = 'model entry'): ModelEntryParse {
  const r = ModelEntrySchema.safeParse(raw);
  if (r.success) return { ok: true, entry: r.data };
  const issues = r.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(entry)'}: ${i.message}`);
  return { ok: false, error: `${where}: ${issues.join('; ')}` };
}

export interface ModelConnection {
  provider: string;
  modelId: string;
  apiKey?: string;
  baseUrl?: string;
  clientType?: string;
}

const blank = (s: string | undefined): boolean => s === undefined || s.trim() === '';

/** Where the OpenAI client sends requests when nothing names a base URL. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** Same endpoint, whatever the case of the host or a trailing slash. */
function sameEndpoint(a: string, b: string): boolean {
  const norm = (u: string) => {
    try {
      const x = new URL(u.trim());
      return `${x.protocol}//${x.host.toLowerCase()}${x.pathname.replace(/\/+$/, '')}`;
    } catch {
      return u.trim().replace(/\/+$/, '');
    }
  };
  return norm(a) === norm(b);
}

/**
 * Credentials and endpoint for an entry; blank values fall back to the OpenAI environment variables. The
 * environment's key belongs to the environment's endpoint (OPENAI_BASE_URL, else api.openai.com): an entry
 * naming another base_url without a key of its own gets no key, so one provider's key never goes to another.
 */
export function resolveModelConnection(entry: ModelEntry, env: Record<string, string | undefined> = process.env): ModelConnection {
  const envBase = !blank(env.OPENAI_BASE_URL) ? env.OPENAI_BASE_URL!.trim() : undefined;
  const baseUrl = !blank(entry.base_url) ? entry.base_url!.trim() : envBase;
  const envKeyFits = blank(entry.base_url) || sameEndpoint(entry.base_url!, envBase ?? OPENAI_DEFAULT_BASE_URL);
  const apiKey = !blank(entry.api_key) ? entry.api_key!.trim() : !blank(env.OPENAI_API_KEY) && envKeyFits ? env.OPENAI_API_KEY!.trim() : undefined;
  const conn: ModelConnection = { provider: entry.provider, modelId: entry.model_id };
  if (apiKey !== undefined) conn.apiKey = apiKey;
  if (baseUrl !== undefined) conn.baseUrl = baseUrl;
  if (entry.client_type !== undefined) conn.clientType = entry.client_type;
  return conn;
}
