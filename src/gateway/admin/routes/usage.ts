/**
 * `GET /api/usage?group=day|model|route|session|project|platform|user&from=&to=&project=&route=&platform=&session_id=&user=`:
 * token sums per group with cost priced at query time (store `usageReport`), plus the grand total. `user` is
 * who asked (`platform:user_id`; '' for unattended runs and usage from before users were recorded).
 * Dates are inclusive local `YYYY-MM-DD`. Without a pricing lookup every cost is null. `format=csv` answers
 * the same report as a CSV download (usage-csv.ts).
 */
import { Router } from 'express';
import * as z from 'zod';
import { PLATFORMS } from '../../config';
import { usageReport, type GatewayStore, type PricingLookup, type UsageGroupBy } from '../../store';
import { badRequest } from '../errors';
import { usageCsv } from '../usage-csv';
import { lazySchema, parseInput, queryDate, queryText } from '../validate';

const GROUPS = { day: 'date', model: 'model', route: 'route', session: 'session', project: 'project', platform: 'platform', user: 'user' } as const satisfies Record<string, UsageGroupBy>;
const GROUP_NAMES = Object.keys(GROUPS) as (keyof typeof GROUPS)[];

const usageQuery = lazySchema(() =>
  z.strictObject({
    group: z.enum(GROUP_NAMES, { error: `expected one of ${GROUP_NAMES.join('|')}` }).default('day'),
    from: queryDate().optional(),
    to: queryDate().optional(),
    project: queryText('a project id').optional(),
    route: queryText('a route name').optional(),
    platform: z.enum(PLATFORMS, { error: `expected one of ${PLATFORMS.join('|')}` }).optional(),
    session_id: queryText('a session id').optional(),
    user: queryText('a user as platform:user_id').optional(),
    format: z.enum(['json', 'csv'], { error: 'expected json or csv' }).default('json'),
  }),
);

const noPricing: PricingLookup = () => undefined;

export function usageRoutes(store: GatewayStore, pricing: PricingLookup = noPricing): Router {
  const r = Router();
  r.get('/usage', async (req, res) => {
    const q = parseInput(usageQuery, req.query, 'query');
    if (q.from !== undefined && q.to !== undefined && q.from > q.to) throw badRequest(`query.from: expected a date on or before query.to (${q.to}), found "${q.from}"`);
    const report = await usageReport(
      store,
      GROUPS[q.group],
      { from_date: q.from, to_date: q.to, project_id: q.project, route: q.route, platform: q.platform, session_id: q.session_id, user_id: q.user },
      pricing,
    );
    if (q.format === 'csv') {
      res.set('Content-Disposition', `attachment; filename="usage-by-${q.group}.csv"`);
      return res.type('text/csv').send(usageCsv(q.group, report));
    }
    res.json({ group: q.group, from: q.from ?? null, to: q.to ?? null, groups: report.groups, total: report.total });
  });
  return r;
}
