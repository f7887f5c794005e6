/**
 * Schema version 2: `sessions.platform_problem`, the last problem the platform reported that the gateway
 * cannot fix itself (bot blocked or kicked, permissions, rejected token), so operators see which
 * conversations are cut off. Cleared when a later reply gets through.
 */
import type { Migration } from './types';

export const platformProblem: Migration = {
  version: 2,
  name: 'platform-problem',
  sql: `ALTER TABLE sessions ADD COLUMN platform_problem TEXT;`,
};
