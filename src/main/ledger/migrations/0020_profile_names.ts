import type { Migration } from './index';

// Profile names are unique (case, spaces and Unicode form aside) and the emulator's name is its own
// (shared/profile-rules.ts): a live profile once called "Local emulator" read "LIVE · LOCAL
// EMULATOR" in the header. Existing ledgers may hold such names: the first profile of each name
// keeps it (the emulator's own profile first), each later one gets " (2)", " (3)"…, and a sandbox or
// live profile named like the emulator becomes "Sandbox profile" / "Live profile". Each rename is
// kept in profile_renames; the app audits it at its next start (ProfileService.auditRenames) — the
// audit chain is written by the audit log alone. A unique index then keeps names apart on the
// ledger's side (ASCII case and common spaces: the service compares the full Unicode form).
// Profiles may be archived (archived_at): hidden from the switcher and pickers, their
// transactions kept. PostgreSQL's 0007_profile_names does the same.
const EMULATOR = 'Local emulator';
const PLACEHOLDER: Record<string, string> = { sandbox: 'Sandbox profile', live: 'Live profile' };

/** Frozen here as this migration ran: a superset of the index's sameness below, so the index always builds. */
const nameKey = (name: string): string => name.normalize('NFKC').replace(/\s+/gu, '').toLowerCase();

/** The index's sameness: ASCII case, and spaces, tabs, line breaks and no-break spaces removed. */
const SQLITE_NAME_KEY = "lower(replace(replace(replace(replace(replace(name, ' ', ''), char(9), ''), char(10), ''), char(13), ''), char(160), ''))";

interface Row {
  id: string;
  name: string;
  environment: string;
}

export const migration0020: Migration = {
  version: 20,
  name: 'profile_names',
  up: (db) => {
    db.exec(`
      ALTER TABLE profiles ADD COLUMN archived_at TEXT;
      CREATE TABLE profile_renames (
        id INTEGER PRIMARY KEY,
        profile_id TEXT NOT NULL REFERENCES profiles (id) ON DELETE CASCADE,
        old_name TEXT NOT NULL,
        new_name TEXT NOT NULL,
        reason TEXT NOT NULL CHECK (reason IN ('duplicate', 'reserved')),
        renamed_at TEXT NOT NULL,
        audited_at TEXT
      ) STRICT;
    `);
    const emulatorKey = nameKey(EMULATOR);
    const rows = (db.prepare('SELECT id, name, environment FROM profiles ORDER BY created_at, id').all() as Row[]).sort(
      (a, b) => Number(!(a.environment === 'local' && nameKey(a.name) === emulatorKey)) - Number(!(b.environment === 'local' && nameKey(b.name) === emulatorKey)),
    );
    const kept = new Set<string>();
    const renamed: { row: Row; reason: 'duplicate' | 'reserved' }[] = [];
    for (const row of rows) {
      const key = nameKey(row.name);
      if (row.environment !== 'local' && key === emulatorKey) renamed.push({ row, reason: 'reserved' });
      else if (kept.has(key)) renamed.push({ row, reason: 'duplicate' });
      else kept.add(key);
    }
    const rename = db.prepare('UPDATE profiles SET name = ? WHERE id = ?');
    const record = db.prepare("INSERT INTO profile_renames (profile_id, old_name, new_name, reason, renamed_at) VALUES (?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))");
    for (const { row, reason } of renamed) {
      const base = reason === 'reserved' ? (PLACEHOLDER[row.environment] ?? 'Profile') : row.name;
      const free = (candidate: string) => !kept.has(nameKey(candidate));
      let name = reason === 'reserved' && free(base) ? base : '';
      for (let n = 2; name === ''; n++) if (free(`${base} (${n})`)) name = `${base} (${n})`;
      kept.add(nameKey(name));
      rename.run(name, row.id);
      record.run(row.id, row.name, name, reason);
    }
    db.exec(`CREATE UNIQUE INDEX profiles_unique_name ON profiles (${SQLITE_NAME_KEY});`);
  },
};
