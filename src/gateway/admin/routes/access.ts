/**
 * Access: pairing requests (`GET /api/pairing?state=`, `POST /api/pairing/:code/approve|deny`; the
 * runtime hears each decision so it can tell the user) and the allowlist (`GET /api/allowlist?platform=`
 * with the `PENGUIN_ALLOW_USERS` entries as `from_env`; `POST /api/allowlist {user: "platform:user_id"}`
 * → 201 when added, 200 when already there; `DELETE /api/allowlist/:user` → 404 `not_allowlisted`).
 */
import { Router } from 'express';
import * as z from 'zod';
import { PLATFORMS, parseUserRef } from '../../config';
import { USER_REF_EXPECTED } from '../../config/user-ref';
import type { GatewayStore } from '../../store';
import { ApiError } from '../errors';
import { decidePairingCode } from '../pairing';
import { ADMIN_ACTOR, type AdminRuntime } from '../types';
import { lazySchema, parseInput, queryInt } from '../validate';

const PAIRING_STATES = ['pending', 'approved', 'denied', 'expired'] as const;

const pairingQuery = lazySchema(() =>
  z.strictObject({
    state: z.enum(PAIRING_STATES, { error: `expected one of ${PAIRING_STATES.join('|')}` }).optional(),
    limit: queryInt(1, 500).default(100),
  }),
);

const allowlistQuery = lazySchema(() =>
  z.strictObject({
    platform: z.enum(PLATFORMS, { error: `expected one of ${PLATFORMS.join('|')}` }).optional(),
  }),
);

const userRef = () =>
  z
    .string({ error: `expected ${USER_REF_EXPECTED}` })
    .transform((s, ctx) => {
      const ref = parseUserRef(s.trim());
      if (!ref) {
        ctx.addIssue({ code: 'custom', message: `expected ${USER_REF_EXPECTED}` });
        return z.NEVER;
      }
      return ref;
    });

const allowBody = lazySchema(() =>
  z.strictObject({ user: userRef() }, { error: 'expected a JSON object {"user": "platform:user_id"}' }),
);
const userParam = lazySchema(() =>
  z.strictObject({ user: userRef() }),
);

/** `envUsers`: the `PENGUIN_ALLOW_USERS` entries, shown alongside the stored list (they cannot be removed here). */
export function accessRoutes(store: GatewayStore, runtime: AdminRuntime, envUsers: readonly string[]): Router {
  const r = Router();

  r.get('/pairing', async (req, res) => {
    const q = parseInput(pairingQuery, req.query, 'query');
    res.json({ requests: await store.listPairings({ state: q.state, limit: q.limit }) });
  });

  for (const [verb, decision] of [['approve', 'approved'], ['deny', 'denied']] as const) {
    r.post(`/pairing/:code/${verb}`, async (req, res) => {
      const out = await decidePairingCode(store, String(req.params.code), decision, ADMIN_ACTOR);
      if (!out.ok) throw new ApiError(out.status, out.code, out.message);
      await runtime.pairingDecided(out.row);
      res.json({ request: out.row });
    });
  }

  r.get('/allowlist', async (req, res) => {
    const q = parseInput(allowlistQuery, req.query, 'query');
    const fromEnv = q.platform === undefined ? envUsers : envUsers.filter((u) => u.startsWith(`${q.platform}:`));
    res.json({ users: await store.listAllowed(q.platform), from_env: fromEnv });
  });

  r.post('/allowlist', async (req, res) => {
    const { user } = parseInput(allowBody, req.body, 'body');
    const added = await store.allowUser(user.platform, user.userId, ADMIN_ACTOR);
    res.status(added ? 201 : 200).json({ user: `${user.platform}:${user.userId}`, added });
  });

  r.delete('/allowlist/:user', async (req, res) => {
    const { user } = parseInput(userParam, req.params, 'path');
    const ref = `${user.platform}:${user.userId}`;
    if (!(await store.disallowUser(user.platform, user.userId))) throw new ApiError(404, 'not_allowlisted', `${ref} is not on the allowlist`);
    res.json({ user: ref, removed: true });
  });

  return r;
}
