// Statements as an upgrade from the version before, on each engine: SQLite's 0022 and PostgreSQL's
// 0010 (the same expectations for both: the two migrations agree). Every row the ledger held stays;
// the new tables are there, empty, with the same columns on both engines (ledger:copy needs them
// alike); a line's natural key is unique per profile.
import { describe, expect, it } from 'vitest';
import { openLedger, schemaVersion } from '../../../src/main/ledger/connection';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { inColumnsOf, ledgerAtVersion, ledgerRows, ManualClock, testEngine, upgradedLedger, upgradeVersions } from '../../helpers/ledger';
import { cleanupsAfterEach } from '../../helpers/cleanups';

const clock = new ManualClock();
const cleanups = cleanupsAfterEach();

const { added: ADDED, before: BEFORE } = upgradeVersions({ sqlite: 22, postgres: 10 });

/** The new tables and their columns, alike on both engines. */
const TABLES: Record<string, string[]> = {
  statement_uploads: ['chunks', 'created_at', 'created_by', 'declared_size', 'file_name', 'id', 'kind', 'profile_id', 'received'],
  statement_upload_chunks: ['bytes', 'seq', 'upload_id'],
  statement_imports: ['added', 'already', 'created_by', 'error_line', 'error_reason', 'file_name', 'file_sha256', 'file_size', 'finished_at', 'format', 'id', 'kind', 'lines', 'profile_id', 'source', 'started_at', 'state'],
  statement_layouts: ['format', 'id', 'kind', 'layout', 'source', 'updated_at', 'updated_by'],
  // occurrence: added by SQLite's 0026 and PostgreSQL's 0014 (migration-staged-occurrence.test.ts).
  settlement_staging: ['amount', 'base_key', 'booking_date', 'currency', 'direction', 'fee', 'import_id', 'line', 'line_type', 'merchant_reference', 'method', 'net', 'occurred_at', 'occurrence', 'payin_id', 'payout_id', 'request_id', 'settlement_id', 'topup_id', 'wallet_id'],
  settlement_lines: [
    'amount', 'booking_date', 'currency', 'day', 'decided_at', 'decided_by', 'direction', 'fee', 'held', 'id', 'import_id', 'line', 'line_key', 'line_type', 'matched_by',
    'merchant_reference', 'method', 'net', 'note', 'occurred_at', 'payin_id', 'payout_id', 'profile_id', 'request_id', 'row_id', 'settlement_id', 'subject', 'topup_id', 'wallet_id',
  ],
  settlements: ['credit_agrees', 'credited', 'credits', 'currency', 'fees', 'gross', 'id', 'lines', 'net', 'pays', 'profile_id', 'settlement_id', 'value_date'],
  bank_staging: ['account', 'amount', 'base_key', 'booking_date', 'counterparty', 'currency', 'direction', 'end_to_end_id', 'entry_ref', 'import_id', 'line', 'remittance', 'value_date'],
  bank_lines: [
    'account', 'amount', 'booking_date', 'counterparty', 'currency', 'decided_at', 'decided_by', 'direction', 'end_to_end_id', 'entry_ref', 'held', 'id', 'import_id', 'line',
    'line_key', 'matched_by', 'note', 'profile_id', 'remittance', 'settlement_id', 'value_date',
  ],
  statement_proposals: ['bank_line_id', 'created_at', 'decided_at', 'decided_by', 'id', 'note', 'profile_id', 'reason', 'settlement_id', 'state'],
};

async function columnsOf(db: Awaited<ReturnType<typeof openLedger>>, table: string): Promise<string[]> {
  const rows =
    db.engine === 'sqlite'
      ? await db.all<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`)
      : await db.all<{ name: string }>('SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?', [table]);
  return rows.map((r) => r.name).sort();
}

describe(`statements as an upgrade from version ${BEFORE} (${testEngine})`, () => {
  it('keeps every row, adds the statement tables empty with the same columns on both engines, and keys each line once per profile', async () => {
    const old = await ledgerAtVersion(BEFORE, clock.now, cleanups);
    expect(await schemaVersion(old.db)).toBe(BEFORE);
    const repos = createRepositories(old.db, clock.now);
    const profile = await repos.profiles.create({ name: 'Shop', environment: 'sandbox', baseUrl: 'https://pay.example.com/api/v2', merchantId: 'm', merchantSiteId: 's' });
    await old.db.run(
      "INSERT INTO payins (profile_id, kind, request_id, payin_id, method, amount, currency, email, status_code, status_category, final, created_at, updated_at) VALUES (?, 'payin', 'r-1', 'p-1', 'blik', '10.00', 'PLN', 'a@example.com', '200', 'success', 1, '2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z')",
      [profile.id],
    );
    await repos.audit.append({ actor: 'user', action: 'settings.update', details: { theme: 'dark' } });
    const before = await ledgerRows(old.db);
    await old.db.close();

    const db = await upgradedLedger(old.address, clock.now, cleanups);
    expect(await schemaVersion(db)).toBeGreaterThanOrEqual(ADDED);
    expect(inColumnsOf(before, await ledgerRows(db))).toEqual(before);
    for (const [table, columns] of Object.entries(TABLES)) {
      expect(await columnsOf(db, table), table).toEqual(columns);
      expect((await db.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))?.n, table).toBe(0);
    }

    const upgraded = createRepositories(db, clock.now);
    const importId = await upgraded.statementFiles.createImport({ profileId: profile.id, kind: 'settlement', format: 'csv', source: 'S', fileName: 'f.csv', fileSize: 1, fileSha256: '', createdBy: null, startedAt: clock.now().toISOString() });
    const line = { line: 2, baseKey: 'payin|STL-1|p-1', type: 'payin' as const, settlementId: 'STL-1', walletId: null, payinId: 'p-1', requestId: null, payoutId: null, merchantReference: null, topupId: null, method: 'blik', currency: 'PLN', amount: '10.00', fee: '0.15', net: '9.85', direction: 'credit' as const, occurredAt: null, bookingDate: '2026-01-03' };
    await upgraded.settlementLines.stage(importId, [line, { ...line, line: 3 }]);
    expect(await upgraded.transaction(() => upgraded.settlementLines.commitStaged(importId, profile.id))).toEqual({ added: 2, matched: 2 });
    await upgraded.settlementLines.dropStaged(importId);
    await upgraded.settlementLines.stage(importId, [line]);
    expect(await upgraded.transaction(() => upgraded.settlementLines.commitStaged(importId, profile.id))).toEqual({ added: 0, matched: 0 });
    // Both lines were matched to the pay-in by its payin_id as they went in: nothing is left to match.
    expect(await upgraded.settlementLines.matchByIds(profile.id)).toBe(0);
  });
});
