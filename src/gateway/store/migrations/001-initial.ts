/**
 * Schema version 1: the gateway's index (sessions, bindings, usage, schedule runs) and its coordination
 * state (approvals, deliveries, inbound dedupe, pairing, allowlist, admin tokens). Times are epoch ms.
 * Usage and deliveries carry no foreign keys: they are ledgers that outlive the sessions they name.
 */
import type { Migration } from './types';

export const initial: Migration = {
  version: 1,
  name: 'initial',
  sql: `
CREATE TABLE sessions (
  session_id        TEXT PRIMARY KEY,
  project_id        TEXT NOT NULL,
  agent_id          TEXT NOT NULL,
  parent_session_id TEXT,
  route             TEXT,
  platform          TEXT,
  binding_key       TEXT,
  title             TEXT,
  status            TEXT NOT NULL DEFAULT 'idle' CHECK (status IN ('idle', 'running', 'compacting')),
  approval_mode     TEXT NOT NULL DEFAULT 'read-only' CHECK (approval_mode IN ('allow-all', 'deny-all', 'read-only', 'always-ask')),
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL,
  last_active_at    INTEGER NOT NULL,
  cache_read        INTEGER NOT NULL DEFAULT 0,
  cache_write       INTEGER NOT NULL DEFAULT 0,
  output            INTEGER NOT NULL DEFAULT 0,
  total             INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sessions_last_active ON sessions (last_active_at DESC);
CREATE INDEX sessions_project_agent ON sessions (project_id, agent_id, last_active_at DESC);
CREATE INDEX sessions_platform ON sessions (platform, last_active_at DESC);
CREATE INDEX sessions_route ON sessions (route, last_active_at DESC);
CREATE INDEX sessions_parent ON sessions (parent_session_id);
CREATE INDEX sessions_busy ON sessions (status) WHERE status <> 'idle';

CREATE TABLE bindings (
  binding_key TEXT PRIMARY KEY,
  session_id  TEXT NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
  updated_at  INTEGER NOT NULL
);
CREATE INDEX bindings_session ON bindings (session_id);

CREATE TABLE approvals (
  id                TEXT PRIMARY KEY,
  session_id        TEXT NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
  origin_session_id TEXT,
  tool_call_id      TEXT NOT NULL,
  tool_name         TEXT NOT NULL,
  requester         TEXT,
  card_platform     TEXT,
  card_chat         TEXT,
  card_message_id   TEXT,
  state             TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'allowed', 'denied', 'expired', 'cancelled')),
  decided_by        TEXT,
  decided_at        INTEGER,
  created_at        INTEGER NOT NULL,
  expires_at        INTEGER NOT NULL,
  task_id           TEXT
);
CREATE INDEX approvals_session ON approvals (session_id, created_at);
CREATE INDEX approvals_pending ON approvals (expires_at) WHERE state = 'pending';
CREATE INDEX approvals_tool_call ON approvals (tool_call_id);

CREATE TABLE usage (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  ts                INTEGER NOT NULL,
  date              TEXT NOT NULL,
  project_id        TEXT NOT NULL,
  agent_id          TEXT NOT NULL,
  session_id        TEXT NOT NULL,
  origin_session_id TEXT,
  route             TEXT,
  platform          TEXT,
  provider          TEXT NOT NULL,
  model_id          TEXT NOT NULL,
  cache_read        INTEGER NOT NULL DEFAULT 0,
  cache_write       INTEGER NOT NULL DEFAULT 0,
  output            INTEGER NOT NULL DEFAULT 0,
  total             INTEGER NOT NULL DEFAULT 0,
  status            TEXT NOT NULL DEFAULT 'completed'
);
CREATE INDEX usage_date ON usage (date);
CREATE INDEX usage_project_date ON usage (project_id, date);
CREATE INDEX usage_session ON usage (session_id);
CREATE INDEX usage_origin ON usage (origin_session_id) WHERE origin_session_id IS NOT NULL;
CREATE INDEX usage_model ON usage (provider, model_id);

CREATE TABLE deliveries (
  id                  INTEGER PRIMARY KEY AUTOINCREMENT,
  platform            TEXT NOT NULL,
  chat                TEXT NOT NULL,
  platform_message_id TEXT,
  session_id          TEXT,
  task_id             TEXT,
  purpose             TEXT NOT NULL CHECK (purpose IN ('live', 'final', 'card', 'notice', 'schedule')),
  state               TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed', 'finalized', 'interrupted')),
  attempts            INTEGER NOT NULL DEFAULT 0,
  last_error          TEXT,
  created_at          INTEGER NOT NULL,
  updated_at          INTEGER NOT NULL
);
CREATE INDEX deliveries_session ON deliveries (session_id, created_at);
CREATE INDEX deliveries_task ON deliveries (task_id) WHERE task_id IS NOT NULL;
CREATE INDEX deliveries_open ON deliveries (created_at) WHERE state IN ('pending', 'sent');
CREATE INDEX deliveries_chat ON deliveries (platform, chat, created_at);

CREATE TABLE inbound_events (
  platform    TEXT NOT NULL,
  event_id    TEXT NOT NULL,
  received_at INTEGER NOT NULL,
  PRIMARY KEY (platform, event_id)
) WITHOUT ROWID;
CREATE INDEX inbound_received ON inbound_events (received_at);

CREATE TABLE schedule_runs (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  schedule_name TEXT NOT NULL,
  project_id    TEXT NOT NULL,
  agent_id      TEXT NOT NULL,
  slot          INTEGER NOT NULL,
  status        TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'missed')),
  session_id    TEXT,
  started_at    INTEGER,
  ended_at      INTEGER,
  duration_ms   INTEGER,
  error         TEXT,
  created_at    INTEGER NOT NULL,
  UNIQUE (project_id, agent_id, schedule_name, slot)
);
CREATE INDEX schedule_runs_unfinished ON schedule_runs (status) WHERE status IN ('queued', 'running');

CREATE TABLE pairing_requests (
  code       TEXT PRIMARY KEY,
  platform   TEXT NOT NULL,
  user_id    TEXT NOT NULL,
  user_name  TEXT,
  chat       TEXT,
  state      TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'approved', 'denied', 'expired')),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  decided_at INTEGER
);
CREATE INDEX pairing_user ON pairing_requests (platform, user_id, state);
CREATE INDEX pairing_state ON pairing_requests (state, created_at);

CREATE TABLE allowlist (
  platform   TEXT NOT NULL,
  user_id    TEXT NOT NULL,
  added_by   TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (platform, user_id)
) WITHOUT ROWID;

CREATE TABLE admin_tokens (
  hash       TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
`,
};
