/**
 * Schema version 5: `pairing_requests.notified_at`, when the person (or group) behind a decided pairing
 * request was told. Whoever decides (the CLI, the admin API) only writes the decision; the running gateway
 * tells everyone whose decision has no `notified_at` yet, so each is told once, by the one process that
 * talks to the platform. Requests decided before this version count as told.
 */
import type { Migration } from './types';

export const pairingNotified: Migration = {
  version: 5,
  name: 'pairing-notified',
  sql: `ALTER TABLE pairing_requests ADD COLUMN notified_at INTEGER;
UPDATE pairing_requests SET notified_at = decided_at WHERE state IN ('approved', 'denied');
CREATE INDEX pairing_unnotified ON pairing_requests (state) WHERE notified_at IS NULL;`,
};
