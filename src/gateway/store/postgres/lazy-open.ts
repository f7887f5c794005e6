/**
 * `openPostgresStore` with its module required at the call: a gateway on SQLite (the default) never loads
 * the PostgreSQL store or its driver. The store's index and `openGatewayStore` both open it through here.
 */
import type * as PostgresOpen from './open';

export const openPostgresStore: typeof PostgresOpen.openPostgresStore = (url, o) => (require('./open') as typeof PostgresOpen).openPostgresStore(url, o);
