// What "no partial write" is checked against: the row count of every ledger table, the head of the
// audit chain, and the number of rows the core's own connection has ever changed (total_changes()
// also catches an UPDATE that leaves every count alone).
import type Database from 'better-sqlite3';

export interface LedgerDigest {
  counts: Record<string, number>;
  auditHead: { seq: number; hash: string } | null;
  changes: number;
}

export function ledgerDigest(db: Database.Database): LedgerDigest {
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
  const counts: Record<string, number> = {};
  for (const table of tables) counts[table] = (db.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n;
  const auditHead = tables.includes('audit_log') ? ((db.prepare('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1').get() as { seq: number; hash: string } | undefined) ?? null) : null;
  const changes = (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
  return { counts, auditHead, changes };
}
