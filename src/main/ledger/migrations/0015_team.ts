import type { Migration } from './index';

// The team server's people, their sessions, failed sign-ins (the rate limit) and the credentials it
// keeps sealed under its envelope key (docs/team.md). A desk's ledger has these tables empty: only a
// team server (on PostgreSQL, migrations/postgres/0003_team.ts) fills them, and `npm run
// ledger:copy` does not copy them (a desk has no team).
export const migration0015: Migration = {
  version: 15,
  name: 'team',
  up: (db) => {
    db.exec(`
      CREATE TABLE team_users (
        id TEXT PRIMARY KEY,
        username TEXT NOT NULL UNIQUE,
        display_name TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('admin', 'approver', 'finance', 'support', 'developer')),
        password_hash TEXT NOT NULL,
        totp_secret TEXT,
        totp_pending TEXT,
        totp_last_step INTEGER,
        active_profile_id TEXT,
        disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        last_login_at TEXT
      ) STRICT;
      CREATE TABLE team_sessions (
        id TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL UNIQUE,
        user_id TEXT NOT NULL REFERENCES team_users (id),
        client TEXT NOT NULL CHECK (client IN ('browser', 'desktop')),
        created_at TEXT NOT NULL,
        last_seen_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        revoked_at TEXT
      ) STRICT;
      CREATE INDEX team_sessions_user ON team_sessions (user_id);
      CREATE TABLE team_login_failures (
        id INTEGER PRIMARY KEY,
        username TEXT NOT NULL,
        address TEXT NOT NULL,
        at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX team_login_failures_username ON team_login_failures (username, at);
      CREATE INDEX team_login_failures_address ON team_login_failures (address, at);
      CREATE TABLE server_secrets (
        account TEXT PRIMARY KEY,
        sealed TEXT NOT NULL,
        key_id TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;
    `);
  },
};
