/**
 * The gateway store: the `GatewayStore` interface (what the runtime, admin API and CLI program against),
 * its SQLite (`openSqliteStore`) and PostgreSQL (`openPostgresStore`) implementations, the journal that keeps what no trace holds (`journaled`),
 * query-time cost, usage-row extraction and reindex.
 */
export type * from './types';
export { StoreError, type StoreErrorCode } from './errors';
export { openSqliteStore, type SqliteStore, type OpenOptions } from './sqlite/open';
export { migrate, currentSchemaVersion, type MigrationReport } from './sqlite/migrate';
export type { PostgresStore, PgOpenOptions } from './postgres/open';
export { openPostgresStore } from './postgres/lazy-open';
export { currentPgSchemaVersion } from './postgres/migrate';
export { redactDatabaseUrl, databaseUrlPassword } from './postgres/url';
export { MIGRATIONS, type Migration } from './migrations';
export { costOf, costUsage, usageReport, type PricingRates, type PricingLookup, type CostedUsage } from './cost';
export { usageRowFromMessage, type UsageAttribution } from './usage-rows';
export { reindexFromFiles, type ReindexReport } from './reindex';
export { journaled } from './journal/journaled-store';
export { openGatewayStore, describeRebuild, type GatewayStoreHandle, type Rebuilt } from './open-gateway-store';
export { JournalFile, journalPath, JOURNAL_FILE, type JournalRead } from './journal/journal-file';
export type { JournalEntry } from './journal/entries';
export { newApprovalId, newPairingCode, hashAdminToken, APPROVAL_ID_RE, PAIRING_CODE_RE } from './ids';
export { localDate } from './tables/sql';
