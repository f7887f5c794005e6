/**
 * The Slack adapter (Bolt 5): `createSlackBinding(section)` builds the adapter from the gateway's `slack`
 * config section and, in HTTP mode, the `POST /slack/events` route for the gateway's listener; the pure
 * pieces (event mapping, error classification, blocks, thread refs, rate scopes) are exported for tests.
 */
import type { AdapterBinding, BindingDeps } from '../contract/binding';
import { SlackAdapter } from './adapter';
import { slackConfigOf, type SlackSection } from './config';

export function createSlackBinding(section: SlackSection, deps: BindingDeps = {}): AdapterBinding {
  const adapter = new SlackAdapter(slackConfigOf(section), deps);
  const routes = adapter.httpRoutes();
  return routes ? { adapter, routes } : { adapter };
}

export { SlackAdapter } from './adapter';
export type { SlackAdapterConfig, SlackSection } from './config';
