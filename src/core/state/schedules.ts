/**
 * Schedule files `agent_state/schedule/<name>.toml` (engine.md §6.4), parsed and validated for the
 * scheduler: `prompt` (required), `enabled` (default false), `start_at` (required ISO instant), optional
 * `period` (`^\d+[mhd]$`, ≥ 5 min) or — gateway extension — `cron` (+ `timezone`, runs ≥ 5 min apart),
 * `end_at` > `start_at`, then `session_id` or `workspace` + `provider`/`model_id` (both or neither), and the
 * gateway's `deliver_to` (`<platform>:<target>`, checked per platform by the gateway), `approval_mode` and
 * `max_duration` (`^\d+[smhd]$`, >= 1 s). Each file is judged on its own, errors carry key paths.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Cron } from 'croner';
import * as z from 'zod';
import { APPROVAL_MODES, type ApprovalMode } from './approval';
import { describeValue, fail, issuesFromZod, ok, type StateFileError, type StateIssue, type StateResult } from './errors';
import { readIfExists } from './files';
import { parseTomlText } from './parse-text';
import { ID_RE } from './paths';
import type { TomlDate } from './toml';

export const PERIOD_RE = /^(\d+)([mhd])$/;
export const MIN_PERIOD_MS = 5 * 60_000;
export const DELIVER_TO_RE = /^[a-z][a-z0-9_-]*:\S+$/;
export const DURATION_RE = /^(\d+)([smhd])$/;

export interface ScheduleDefinition {
  name: string;
  file: string;
  prompt: string;
  enabled: boolean;
  startAt: Date;
  /** Interval in ms (from `period`); absent with `cron` or for a one-shot. */
  periodMs?: number;
  period?: string;
  cron?: string;
  timezone?: string;
  endAt?: Date;
  sessionId?: string;
  workspace?: string;
  provider?: string;
  modelId?: string;
  deliverTo?: string;
  /** The approval mode the file asks for (the gateway may narrow it; see its scheduler). */
  approvalMode?: ApprovalMode;
  /** A run longer than this is aborted (from `max_duration`). */
  maxDurationMs?: number;
  maxDuration?: string;
}

/** `30s`, `15m`, `2h`, `1d` in ms; undefined when the text is not a duration. */
export function durationToMs(text: string): number | undefined {
  const m = DURATION_RE.exec(text);
  if (!m) return undefined;
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
  return Number(m[1]) * unit;
}

export function periodToMs(period: string): number | undefined {
  const m = PERIOD_RE.exec(period);
  if (!m) return undefined;
  const unit = m[2] === 'm' ? 60_000 : m[2] === 'h' ? 3_600_000 : 86_400_000;
  return Number(m[1]) * unit;
}

/** A TOML offset datetime, or a string holding an ISO instant with a zone; local times are rejected. */
function instant(v: unknown): Date | undefined {
  if (v instanceof Date) {
    const local = typeof (v as TomlDate).isLocal === 'function' && ((v as TomlDate).isLocal() || (v as TomlDate).isDate() || (v as TomlDate).isTime());
    return local || Number.isNaN(v.getTime()) ? undefined : new Date(v.getTime());
  }
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(v.trim())) {
    const d = new Date(v.trim());
    return Number.isNaN(d.getTime()) ? undefined : d;
  }
  return undefined;
}

const INSTANT_EXPECTED = 'an ISO 8601 instant with a zone, e.g. 2026-08-01T09:00:00Z';
const Instant = z.custom<Date | string>((v) => instant(v) !== undefined, { message: INSTANT_EXPECTED });

const ScheduleFileSchema = z.strictObject({
  prompt: z.string().trim().min(1),
  enabled: z.boolean().default(false),
  start_at: Instant,
  period: z.string().regex(PERIOD_RE).optional(),
  end_at: Instant.optional(),
  session_id: z.string().trim().min(1).optional(),
  workspace: z.string().trim().min(1).optional(),
  provider: z.string().trim().min(1).optional(),
  model_id: z.string().trim().min(1).optional(),
  cron: z.string().trim().min(1).optional(),
  timezone: z.string().trim().min(1).optional(),
  deliver_to: z.string().regex(DELIVER_TO_RE).optional(),
  approval_mode: z.enum(APPROVAL_MODES).optional(),
  max_duration: z.string().regex(DURATION_RE).optional(),
});

function validTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The smallest gap between the next runs of a cron expression (checked over a sample of runs). */
function cronIssue(expr: string, timezone: string | undefined, from: Date): string | undefined {
  let job: Cron;
  try {
    job = new Cron(expr, { paused: true, ...(timezone ? { timezone } : {}) });
  } catch (err) {
    return (err as Error).message;
  }
  const runs = job.nextRuns(13, from);
  job.stop();
  for (let i = 1; i < runs.length; i++) {
    if (runs[i].getTime() - runs[i - 1].getTime() < MIN_PERIOD_MS) return 'runs less than 5 minutes apart';
  }
  return runs.length === 0 ? 'never runs' : undefined;
}

export function parseScheduleFile(name: string, text: string, file: string): StateResult<ScheduleDefinition> {
  if (!ID_RE.test(name)) {
    return fail(file, 'invalid', [{ path: '', expected: 'a file name of letters, digits, "_" and "-" plus .toml', found: `name ${JSON.stringify(name)}` }]);
  }
  const parsed = parseTomlText(text, file);
  if (!parsed.ok) return parsed;
  const raw = parsed.value;
  const r = ScheduleFileSchema.safeParse(raw);
  if (!r.success) return fail(file, 'invalid', issuesFromZod(r.error, raw, ScheduleFileSchema));
  const f = r.data;
  const startAt = instant(f.start_at)!;
  const endAt = f.end_at !== undefined ? instant(f.end_at) : undefined;
  const issues: StateIssue[] = [];
  const found = (key: string) => describeValue(raw[key]);
  const periodMs = f.period !== undefined ? periodToMs(f.period) : undefined;
  if (periodMs !== undefined && periodMs < MIN_PERIOD_MS) issues.push({ path: 'period', expected: 'an interval of at least 5 minutes (e.g. "5m", "1h", "1d")', found: found('period') });
  if (endAt && endAt.getTime() <= startAt.getTime()) issues.push({ path: 'end_at', expected: `an instant later than start_at (${startAt.toISOString()})`, found: `date ${endAt.toISOString()}` });
  if (f.cron !== undefined && f.period !== undefined) issues.push({ path: 'cron', expected: 'either `period` or `cron`, not both', found: found('cron') });
  if (f.timezone !== undefined && f.cron === undefined) issues.push({ path: 'timezone', expected: 'a `cron` key alongside `timezone`', found: found('timezone') });
  else if (f.timezone !== undefined && !validTimezone(f.timezone)) issues.push({ path: 'timezone', expected: 'an IANA time zone such as "Europe/Berlin"', found: found('timezone') });
  if (f.cron !== undefined && !issues.some((i) => i.path === 'timezone')) {
    const why = cronIssue(f.cron, f.timezone, startAt);
    if (why) issues.push({ path: 'cron', expected: `a valid cron expression whose runs are at least 5 minutes apart (${why})`, found: found('cron') });
  }
  const maxDurationMs = f.max_duration !== undefined ? durationToMs(f.max_duration) : undefined;
  if (maxDurationMs !== undefined && maxDurationMs < 1000) issues.push({ path: 'max_duration', expected: 'a duration of at least 1 second (e.g. "90s", "30m", "2h")', found: found('max_duration') });
  if ((f.provider === undefined) !== (f.model_id === undefined)) {
    const missing = f.provider === undefined ? 'provider' : 'model_id';
    issues.push({ path: missing, expected: 'provider and model_id together (both or neither)', found: describeValue(undefined) });
  }
  if (f.session_id !== undefined) {
    for (const key of ['workspace', 'provider', 'model_id'] as const) {
      if (f[key] !== undefined) issues.push({ path: key, expected: 'no workspace/provider/model_id when session_id is set', found: found(key) });
    }
  }
  if (issues.length > 0) return fail(file, 'invalid', issues);
  const def: ScheduleDefinition = { name, file, prompt: f.prompt, enabled: f.enabled, startAt };
  if (periodMs !== undefined) {
    def.periodMs = periodMs;
    def.period = f.period;
  }
  if (f.cron !== undefined) def.cron = f.cron;
  if (f.timezone !== undefined) def.timezone = f.timezone;
  if (endAt) def.endAt = endAt;
  if (f.session_id !== undefined) def.sessionId = f.session_id;
  if (f.workspace !== undefined) def.workspace = f.workspace;
  if (f.provider !== undefined) def.provider = f.provider;
  if (f.model_id !== undefined) def.modelId = f.model_id;
  if (f.deliver_to !== undefined) def.deliverTo = f.deliver_to;
  if (f.approval_mode !== undefined) def.approvalMode = f.approval_mode;
  if (maxDurationMs !== undefined) {
    def.maxDurationMs = maxDurationMs;
    def.maxDuration = f.max_duration;
  }
  return ok(def);
}

/** Schedule names (file names without `.toml`), sorted; [] when the directory is missing. */
export async function listScheduleNames(scheduleDir: string): Promise<string[]> {
  try {
    const entries = await readdir(scheduleDir, { withFileTypes: true });
    return entries
      .filter((e) => e.isFile() && e.name.endsWith('.toml'))
      .map((e) => e.name.slice(0, -'.toml'.length))
      .sort();
  } catch {
    return [];
  }
}

export interface ScheduleLoad {
  valid: ScheduleDefinition[];
  invalid: { name: string; file: string; error: StateFileError }[];
}

/** Every schedule file of an agent, each validated on its own. */
export async function loadSchedules(scheduleDir: string): Promise<ScheduleLoad> {
  const out: ScheduleLoad = { valid: [], invalid: [] };
  for (const name of await listScheduleNames(scheduleDir)) {
    const file = join(scheduleDir, `${name}.toml`);
    const text = await readIfExists(file);
    if (text === undefined) continue;
    const r = parseScheduleFile(name, text, file);
    if (r.ok) out.valid.push(r.value);
    else out.invalid.push({ name, file, error: r.error });
  }
  return out;
}
