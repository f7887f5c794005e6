/**
 * The approval rule of scheduled runs: the file's mode (default allow-all) is capped by a ceiling only the
 * operator can raise — a grant for this exact definition, the route's schedule_approval_mode, else the bound
 * session's or the route's approval_mode — so a file the agent wrote never runs laxer than its route allows.
 */
import { definitionHash, scheduledApproval } from '../../../src/gateway/scheduler';
import { parseScheduleFile, type ScheduleDefinition } from '../../../src/core/state';

const def = (extra = ''): ScheduleDefinition => {
  const r = parseScheduleFile('digest', `prompt = "p"\nstart_at = 2026-06-01T09:00:00Z\nperiod = "1d"\n${extra}`, '/x/digest.toml');
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};
const readOnlyRoute = { approval_mode: 'read-only' as const };

describe('scheduled approval', () => {
  it('caps a file asking for allow-all (or saying nothing) at the route mode', () => {
    const h = definitionHash(def());
    expect(scheduledApproval({ requested: undefined, route: readOnlyRoute, definitionHash: h })).toEqual({ requested: 'allow-all', ceiling: 'read-only', ceiling_from: 'route_approval_mode', effective: 'read-only' });
    expect(scheduledApproval({ requested: 'allow-all', route: { approval_mode: 'deny-all' }, definitionHash: h }).effective).toBe('deny-all');
  });

  it('keeps a file mode stricter than the ceiling', () => {
    expect(scheduledApproval({ requested: 'deny-all', route: { approval_mode: 'allow-all' }, definitionHash: 'x' }).effective).toBe('deny-all');
    expect(scheduledApproval({ requested: 'always-ask', route: readOnlyRoute, definitionHash: 'x' }).effective).toBe('always-ask');
  });

  it('lets the operator raise the ceiling in the config', () => {
    const r = scheduledApproval({ requested: undefined, route: { approval_mode: 'read-only', schedule_approval_mode: 'allow-all' }, boundSessionMode: 'deny-all', definitionHash: 'x' });
    expect(r).toMatchObject({ ceiling: 'allow-all', ceiling_from: 'route_schedule_approval_mode', effective: 'allow-all' });
  });

  it('caps a bound schedule at its session\'s current mode', () => {
    expect(scheduledApproval({ requested: 'allow-all', route: { approval_mode: 'allow-all' }, boundSessionMode: 'always-ask', definitionHash: 'x' })).toMatchObject({ ceiling_from: 'bound_session', effective: 'always-ask' });
  });

  it('honours an operator grant only for the definition it was given for', () => {
    const granted = def('approval_mode = "allow-all"\n');
    const grant = { approval_mode: 'allow-all' as const, definition_hash: definitionHash(granted) };
    expect(scheduledApproval({ requested: 'allow-all', route: readOnlyRoute, grant, definitionHash: definitionHash(granted) })).toMatchObject({ effective: 'allow-all', ceiling_from: 'operator_grant', grant: 'active' });
    // The agent rewrites the prompt (or the target, the workspace, the model…): the grant no longer applies.
    const edited = def('approval_mode = "allow-all"\ndeliver_to = "web:x"\n');
    expect(definitionHash(edited)).not.toBe(grant.definition_hash);
    expect(scheduledApproval({ requested: 'allow-all', route: readOnlyRoute, grant, definitionHash: definitionHash(edited) })).toMatchObject({ effective: 'read-only', ceiling_from: 'route_approval_mode', grant: 'stale' });
  });

  it('hashes what decides a run, not whether it is enabled', () => {
    expect(definitionHash(def('enabled = true\n'))).toBe(definitionHash(def('enabled = false\n')));
    for (const extra of ['end_at = 2026-12-01T00:00:00Z\n', 'workspace = "/w"\n', 'provider = "a"\nmodel_id = "b"\n', 'max_duration = "5m"\n', 'approval_mode = "deny-all"\n']) {
      expect(definitionHash(def(extra))).not.toBe(definitionHash(def()));
    }
  });
});
