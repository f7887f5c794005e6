/**
 * Schema version 3: access decisions for groups as well as users (gateway.md §6, group policy). Pairing
 * requests and allowlist entries get a `kind`: `user` (a platform user id) or `group` (a Telegram chat, a
 * Discord guild, a Slack workspace). The allowlist key becomes (platform, kind, user_id), so a group and a
 * user that happen to share an id stay distinct; existing rows are users.
 */
import type { Migration } from './types';

export const groupAccess: Migration = {
  version: 3,
  name: 'group-access',
  sql: `
ALTER TABLE pairing_requests ADD COLUMN kind TEXT NOT NULL DEFAULT 'user' CHECK (kind IN ('user', 'group'));
DROP INDEX pairing_user;
CREATE INDEX pairing_subject ON pairing_requests (platform, kind, user_id, state);

CREATE TABLE allowlist_v3 (
  platform   TEXT NOT NULL,
  kind       TEXT NOT NULL DEFAULT 'user' CHECK (kind IN ('user', 'group')),
  user_id    TEXT NOT NULL,
  added_by   TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (platform, kind, user_id)
) WITHOUT ROWID;
INSERT INTO allowlist_v3 (platform, kind, user_id, added_by, created_at) SELECT platform, 'user', user_id, added_by, created_at FROM allowlist;
DROP TABLE allowlist;
ALTER TABLE allowlist_v3 RENAME TO allowlist;
`,
};
