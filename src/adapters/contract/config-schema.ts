/**
 * What every platform adapter's config schema shares: a number of milliseconds, an http(s) URL, the
 * streaming pacing block, and `parseAdapterConfig`, which throws one Error naming every bad field by path
 * and message, never by value (the configs carry credentials).
 */
import * as z from 'zod';

export const millisecondsSchema = (what: string) => z.number({ error: `${what} must be a number of milliseconds` }).int().min(0, `${what} must not be negative`);

/** One message for any bad value (a refinement after `z.url` would add a second one for the same field). */
export const httpUrlSchema = (field: string) => z.url({ protocol: /^https?$/, error: `${field} must be an http(s) URL` });

/** Edit and typing pacing from the gateway config (`StreamingSettings`); absent = the platform's defaults. */
export const streamingSettingsSchema = z
  .object({
    dm_edit_interval_ms: millisecondsSchema('streaming.dm_edit_interval_ms'),
    group_edit_interval_ms: millisecondsSchema('streaming.group_edit_interval_ms'),
    typing_renew_ms: millisecondsSchema('streaming.typing_renew_ms'),
  })
  .optional();

export function parseAdapterConfig<T>(schema: z.ZodType<T>, platform: string, input: unknown): T {
  const r = schema.safeParse(input);
  if (!r.success) {
    throw new Error(`invalid ${platform} adapter config: ${r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  }
  return r.data;
}
