/**
 * Hash routing: `#/<page>/<arg>/<arg>` picks one of PAGES and hands it the rest; lib/nav.ts navigates.
 * Hash URLs keep every page behind the one `/` the gateway serves (and its login check).
 */
import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { AccessPage } from '../pages/access';
import { ApprovalsPage } from '../pages/approvals';
import { DeliveriesPage } from '../pages/deliveries';
import { OverviewPage } from '../pages/overview';
import { PlaygroundPage } from '../pages/playground';
import { SchedulesPage } from '../pages/schedules';
import { SessionsPage } from '../pages/sessions';
import { UsagePage } from '../pages/usage';

export interface PageProps {
  args: string[];
}

export const PAGES: { path: string; title: string; Component: FunctionComponent<PageProps> }[] = [
  { path: 'overview', title: 'Overview', Component: OverviewPage },
  { path: 'sessions', title: 'Sessions', Component: SessionsPage },
  { path: 'approvals', title: 'Approvals', Component: ApprovalsPage },
  { path: 'schedules', title: 'Schedules', Component: SchedulesPage },
  { path: 'usage', title: 'Usage', Component: UsagePage },
  { path: 'access', title: 'Access', Component: AccessPage },
  { path: 'deliveries', title: 'Deliveries', Component: DeliveriesPage },
  { path: 'playground', title: 'Playground', Component: PlaygroundPage },
];

function parse(): { page: string; args: string[] } {
  const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  return { page: parts[0] ?? 'overview', args: parts.slice(1) };
}

export function useRoute(): { page: string; args: string[] } {
  const [r, setR] = useState(parse);
  useEffect(() => {
    const on = () => setR(parse());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return r;
}
