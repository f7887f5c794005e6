/**
 * Application commands of the fake app, per scope (`global` or a guild id): create (an existing
 * name+type is overwritten, not created), edit, delete and bulk overwrite (PUT) that keeps ids and
 * versions of unchanged commands. Only genuinely new commands spend the daily budget (200 creates per
 * day per scope, answered with Discord's 429 + code 30034); names, descriptions and options are
 * validated as Discord does (50035).
 */
import { DcApiError, FormErrors, errorForCode } from './discord-errors';
import type { SnowflakeFactory } from './discord-clock';
import type { DcCommand, FakeClock, Json } from './discord-types';

export interface CommandBudget {
  limit: number;
  windowMs: number;
}

const NAME_RE = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;
const FIELDS = ['name', 'description', 'options', 'default_member_permissions', 'dm_permission', 'contexts', 'integration_types', 'nsfw', 'name_localizations', 'description_localizations'];

export class CommandRegistry {
  private scopes = new Map<string, Map<string, DcCommand>>();
  private spent = new Map<string, number[]>();
  private createdTotal = new Map<string, number>();

  constructor(
    private readonly appId: string,
    private readonly ids: SnowflakeFactory,
    private readonly clock: FakeClock,
    private readonly budget: CommandBudget | false,
  ) {}

  list(scope: string): DcCommand[] {
    return [...(this.scopes.get(scope)?.values() ?? [])].map((c) => structuredClone(c));
  }

  get(scope: string, id: string): DcCommand | undefined {
    const c = this.scopes.get(scope)?.get(id);
    return c ? structuredClone(c) : undefined;
  }

  /** Commands created (new name+type) in a scope, or across all scopes. */
  creates(scope?: string): number {
    if (scope !== undefined) return this.createdTotal.get(scope) ?? 0;
    return [...this.createdTotal.values()].reduce((a, b) => a + b, 0);
  }

  create(scope: string, body: Json): { command: DcCommand; created: boolean } {
    const errors = new FormErrors();
    validateCommand(body, '', errors);
    errors.throwIfAny();
    const cmds = this.scope(scope);
    const existing = [...cmds.values()].find((c) => c.name === body.name && c.type === ((body.type as number) ?? 1));
    if (!existing) {
      this.checkLimit(cmds, [body]);
      this.spend(scope, 1);
    }
    const command = this.upsert(scope, existing, body);
    return { command: structuredClone(command), created: !existing };
  }

  edit(scope: string, id: string, body: Json): DcCommand | undefined {
    const current = this.scopes.get(scope)?.get(id);
    if (!current) return undefined;
    const merged = { ...pick(current), ...body } as Json;
    const errors = new FormErrors();
    validateCommand(merged, '', errors);
    errors.throwIfAny();
    return structuredClone(this.upsert(scope, current, merged));
  }

  delete(scope: string, id: string): boolean {
    return this.scopes.get(scope)?.delete(id) ?? false;
  }

  bulkOverwrite(scope: string, bodies: unknown): DcCommand[] {
    const errors = new FormErrors();
    if (!Array.isArray(bodies)) {
      errors.add('_', 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType').throwIfAny();
      return [];
    }
    const seen = new Set<string>();
    bodies.forEach((b: Json, i) => {
      validateCommand(b, `${i}.`, errors);
      const key = `${(b.type as number) ?? 1}:${String(b.name)}`;
      if (seen.has(key)) errors.add(`${i}.name`, 'APPLICATION_COMMANDS_DUPLICATE_NAME', 'Application command names must be unique');
      seen.add(key);
    });
    errors.throwIfAny();
    const cmds = this.scope(scope);
    const byKey = new Map([...cmds.values()].map((c) => [`${c.type}:${c.name}`, c]));
    const fresh = bodies.filter((b: Json) => !byKey.has(`${(b.type as number) ?? 1}:${String(b.name)}`));
    this.checkLimit(new Map(), bodies as Json[]);
    if (fresh.length) this.spend(scope, fresh.length);
    const next = new Map<string, DcCommand>();
    for (const b of bodies as Json[]) {
      const cmd = this.build(scope, byKey.get(`${(b.type as number) ?? 1}:${String(b.name)}`), b);
      next.set(cmd.id, cmd);
    }
    this.scopes.set(scope, next);
    return [...next.values()].map((c) => structuredClone(c));
  }

  private scope(scope: string): Map<string, DcCommand> {
    let m = this.scopes.get(scope);
    if (!m) {
      m = new Map();
      this.scopes.set(scope, m);
    }
    return m;
  }

  private checkLimit(existing: Map<string, DcCommand>, adding: Json[]): void {
    const chatInput = [...existing.values()].filter((c) => c.type === 1).length + adding.filter((b) => ((b.type as number) ?? 1) === 1).length;
    if (chatInput > 100) throw errorForCode(30032, 400, 'Maximum number of application commands reached (100)');
  }

  private spend(scope: string, n: number): void {
    const now = this.clock.now();
    if (this.budget) {
      const windowMs = this.budget.windowMs;
      const times = (this.spent.get(scope) ?? []).filter((t) => now - t < windowMs);
      if (times.length + n > this.budget.limit) {
        const retry = ((times[0] ?? now) + windowMs - now) / 1000;
        throw new DcApiError(429, 30034, `Max number of daily application command creates has been reached (${this.budget.limit})`, undefined, retry);
      }
      for (let i = 0; i < n; i++) times.push(now);
      this.spent.set(scope, times);
    }
    this.createdTotal.set(scope, (this.createdTotal.get(scope) ?? 0) + n);
  }

  private upsert(scope: string, existing: DcCommand | undefined, body: Json): DcCommand {
    const cmd = this.build(scope, existing, body);
    this.scope(scope).set(cmd.id, cmd);
    return cmd;
  }

  private build(scope: string, existing: DcCommand | undefined, body: Json): DcCommand {
    const type = (body.type as number) ?? 1;
    const cmd: DcCommand = {
      id: existing?.id ?? this.ids.next(), application_id: this.appId, version: existing?.version ?? '', type, name: String(body.name),
      description: type === 1 ? String(body.description ?? '') : '', default_member_permissions: (body.default_member_permissions as string | null) ?? null,
      nsfw: body.nsfw === true, integration_types: (body.integration_types as number[]) ?? [0], contexts: (body.contexts as number[] | null) ?? null,
      name_localizations: body.name_localizations ?? null, description_localizations: body.description_localizations ?? null,
    };
    if (scope === 'global') cmd.dm_permission = body.dm_permission !== false;
    else cmd.guild_id = scope;
    if (Array.isArray(body.options) && body.options.length) cmd.options = structuredClone(body.options) as DcCommand['options'];
    const changed = !existing || JSON.stringify(pick(existing)) !== JSON.stringify(pick(cmd));
    cmd.version = changed ? this.ids.next() : existing!.version;
    return cmd;
  }
}

function pick(c: Json): Json {
  const out: Json = {};
  for (const f of FIELDS) if (c[f] !== undefined && c[f] !== null) out[f] = c[f];
  return out;
}

function validateCommand(b: Json, p: string, errors: FormErrors): void {
  const type = (b.type as number) ?? 1;
  const name = b.name;
  if (typeof name !== 'string' || name.length < 1 || name.length > 32) errors.badLength(`${p}name`, 1, 32);
  else if (type === 1 && (!NAME_RE.test(name) || name !== name.toLowerCase())) {
    errors.add(`${p}name`, 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
  }
  if (type === 1) {
    const d = b.description;
    if (typeof d !== 'string' || d.length < 1 || d.length > 100) errors.badLength(`${p}description`, 1, 100);
  } else if (b.description) {
    errors.add(`${p}description`, 'APPLICATION_COMMAND_DESCRIPTION_NOT_ALLOWED', 'Context menu commands cannot have description');
  }
  const options = b.options as Json[] | undefined;
  if (options === undefined) return;
  if (!Array.isArray(options)) return void errors.add(`${p}options`, 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
  if (options.length > 25) errors.maxLength(`${p}options`, 25);
  let optionalSeen = false;
  options.forEach((o, i) => {
    const op = `${p}options.${i}.`;
    if (typeof o.name !== 'string' || !NAME_RE.test(o.name) || o.name !== o.name.toLowerCase()) {
      errors.add(`${op}name`, 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
    }
    if (typeof o.description !== 'string' || o.description.length < 1 || o.description.length > 100) errors.badLength(`${op}description`, 1, 100);
    if (Array.isArray(o.choices) && o.choices.length > 25) errors.maxLength(`${op}choices`, 25);
    if (o.required) {
      if (optionalSeen) errors.add(`${p}options`, 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID', 'Required options must be placed before non-required options');
    } else if (o.type !== 1 && o.type !== 2) {
      optionalSeen = true;
    }
  });
}
