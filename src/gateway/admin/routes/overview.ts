/**
 * `GET /api/overview`: what the dashboard's first page shows in one call — each adapter's state (connected,
 * not configured and why, failing, last inbound event), the running Tasks, the rate budgets in use or paused,
 * recent problems (conversations whose platform refused the bot, dead letters), and this instance:
 * `instance: {id, owns, peers: [{id, last_seen}]}`, peers empty when it runs alone, null when the runtime
 * reports none. No query; lists are capped at 20 newest.
 */
import { Router } from 'express';
import * as z from 'zod';
import type { GatewayStore } from '../../store';
import type { AdminRuntime, RuntimeHealth } from '../types';
import { parseInput } from '../validate';

const RECENT = 20;

/** Only the fields the dashboard reads, named here, so a later addition to the runtime's health stays internal. */
function instanceOf(h: RuntimeHealth) {
  const i = h.instance;
  return i ? { id: i.id, owns: i.owns, peers: i.peers.map((p) => ({ id: p.id, last_seen: p.last_seen })) } : null;
}

export function overviewRoutes(store: GatewayStore, runtime: AdminRuntime): Router {
  const r = Router();
  r.get('/overview', async (req, res) => {
    parseInput(z.strictObject({}), req.query, 'query');
    const health = runtime.health();
    const [problems, deadLetters] = await Promise.all([
      store.listSessions({ with_problem: true, include_subagents: false, limit: RECENT }),
      store.listDeliveries({ state: 'failed', newest_first: true, limit: RECENT }),
    ]);
    res.json({
      accepting: health.accepting,
      adapters: health.adapters,
      tasks: runtime.runningTasks(),
      rate_budgets: runtime.rateBudgets(),
      platform_problems: problems.map((s) => ({ session_id: s.session_id, platform: s.platform, title: s.title, problem: s.platform_problem, at: s.updated_at })),
      dead_letters: deadLetters,
      instance: instanceOf(health),
    });
  });
  return r;
}
