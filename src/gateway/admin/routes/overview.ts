/**
 * `GET /api/overview`: what the dashboard's first page shows in one call — each adapter's state (connected,
 * not configured and why, failing, last inbound event), the running Tasks, the rate budgets in use or
 * paused, and recent problems: conversations whose platform refused the bot, and dead letters (deliveries
 * that failed for good). No query; lists are capped at 20 newest.
 */
import { Router } from 'express';
import { z } from 'zod';
import type { GatewayStore } from '../../store';
import type { AdminRuntime } from '../types';
import { parseInput } from '../validate';

const RECENT = 20;

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
    });
  });
  return r;
}
