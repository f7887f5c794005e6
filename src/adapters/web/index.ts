/**
 * The dashboard playground's chat platform: an in-process adapter and its HTTP routes, behind the admin
 * login. `createWebBinding(section, deps)` builds both from the gateway's `web` config section.
 */
import type { RequestHandler } from 'express';
import type { AdapterBinding, BindingDeps, StreamingSettings } from '../contract/binding';
import { webRoutes } from './routes';
import { WebAdapter } from './web-adapter';

export * from './web-adapter';
export * from './routes';

export function createWebBinding(section: { streaming: StreamingSettings }, deps: BindingDeps & { auth: RequestHandler }): AdapterBinding {
  const adapter = new WebAdapter({ streaming: section.streaming });
  return { adapter, routes: webRoutes(adapter, { auth: deps.auth }) };
}
