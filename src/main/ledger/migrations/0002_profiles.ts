import type { Migration } from './index';

// Connection profiles. Secrets (merchant-token, JWT private key) are deliberately absent: they
// live in the OS keychain only, keyed by the profile id.
export const migration0002: Migration = {
  version: 2,
  name: 'profiles',
  up: (db) => {
    db.exec(`
      CREATE TABLE profiles (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL CHECK (length(trim(name)) > 0),
        environment TEXT NOT NULL CHECK (environment IN ('local', 'sandbox', 'live')),
        base_url TEXT NOT NULL,
        merchant_id TEXT NOT NULL,
        merchant_site_id TEXT NOT NULL,
        kid TEXT,
        notification_public_url TEXT,
        listener_path_secret TEXT NOT NULL UNIQUE CHECK (length(listener_path_secret) >= 32),
        is_active INTEGER NOT NULL DEFAULT 0 CHECK (is_active IN (0, 1)),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;
      -- At most one active profile, enforced by the database rather than by care.
      CREATE UNIQUE INDEX profiles_one_active ON profiles (is_active) WHERE is_active = 1;
    `);
  },
};
