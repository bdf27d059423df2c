// What "no partial write" is checked against, through the engine (SQLite or PostgreSQL): the row
// count of every ledger table, the head of the audit chain, and a hash of every row of every table
// (which also catches an UPDATE that leaves every count alone).
import { createHash } from 'node:crypto';
import type { Sql } from '../../../src/main/ledger/engine/types';
import { ledgerTables, rowsOf } from './ledger-tables';

export interface LedgerDigest {
  counts: Record<string, number>;
  auditHead: { seq: number; hash: string } | null;
  /** sha256 of every table's rows, in an order that does not depend on how the engine stores them. */
  content: string;
}

const asText = (value: unknown): unknown => (typeof value === 'bigint' ? value.toString() : Buffer.isBuffer(value) ? value.toString('base64') : value);

export async function ledgerDigest(sql: Sql): Promise<LedgerDigest> {
  const counts: Record<string, number> = {};
  const hash = createHash('sha256');
  for (const table of await ledgerTables(sql)) {
    const rows = (await rowsOf(sql, table)).map((row) => JSON.stringify(Object.entries(row).map(([column, value]) => [column, asText(value)]))).sort();
    counts[table] = rows.length;
    hash.update(`${table}\n${rows.join('\n')}\n`);
  }
  const head = 'audit_log' in counts ? await sql.get<{ seq: number | string; hash: string }>('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1') : undefined;
  return { counts, auditHead: head ? { seq: Number(head.seq), hash: head.hash } : null, content: hash.digest('hex') };
}
