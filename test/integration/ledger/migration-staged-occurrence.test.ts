// A staged line's occurrence as an upgrade from the version before, on each engine: SQLite's 0026
// and PostgreSQL's 0014 (the same expectations for both). Every row the ledger held stays; lines an
// import staged before the upgrade (without an occurrence) commit with their occurrence counted,
// as do lines staged after it whose key may repeat; a line staged with its first occurrence keeps it.
// A desk's import does not outlive its process, and this version stages outside a SQLite ledger's
// file (connection.ts): there the lines the version before staged in the file are dropped at open,
// and the same lines staged again by this version are counted the same way.
import { describe, expect, it } from 'vitest';
import { schemaVersion } from '../../../src/main/ledger/connection';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { inColumnsOf, ledgerAtVersion, ledgerRows, ManualClock, testEngine, upgradedLedger, upgradeVersions } from '../../helpers/ledger';
import { cleanupsAfterEach } from '../../helpers/cleanups';
import { stagedPayinLine } from '../../helpers/statements';

const clock = new ManualClock();
const cleanups = cleanupsAfterEach();

const { added: ADDED, before: BEFORE } = upgradeVersions({ sqlite: 26, postgres: 14 });

const line = (n: number, payinId: string) => ({ ...stagedPayinLine(n, payinId, 'STL-1', { currency: 'PLN', amount: '10.00', fee: '0.15', net: '9.85' }), method: 'blik', bookingDate: '2026-01-03' });

describe(`a staged line's occurrence as an upgrade from version ${BEFORE} (${testEngine})`, () => {
  it('keeps every row, and keys lines staged before and after it by their occurrence in the file, counting those staged without one', async () => {
    const old = await ledgerAtVersion(BEFORE, clock.now, cleanups);
    expect(await schemaVersion(old.db)).toBe(BEFORE);
    const repos = createRepositories(old.db, clock.now);
    const profile = await repos.profiles.create({ name: 'Shop', environment: 'sandbox', baseUrl: 'https://pay.example.com/api/v2', merchantId: 'm', merchantSiteId: 's' });
    const startedAt = clock.now().toISOString();
    const running = await repos.statementFiles.createImport({ profileId: profile.id, kind: 'settlement', format: 'csv', source: 'S', fileName: 'a.csv', fileSize: 1, fileSha256: '', createdBy: null, startedAt });
    // An import staged by the Paydesk before (no occurrence column), committed by this one: the same key twice, another once.
    await old.db.run(
      `INSERT INTO settlement_staging (import_id, line, base_key, line_type, settlement_id, payin_id, currency, amount, fee, net, direction)
       VALUES (?, 2, 'payin|STL-1|p-1', 'payin', 'STL-1', 'p-1', 'PLN', '10.00', '0.15', '9.85', 'credit'),
              (?, 3, 'payin|STL-1|p-2', 'payin', 'STL-1', 'p-2', 'PLN', '10.00', '0.15', '9.85', 'credit'),
              (?, 4, 'payin|STL-1|p-1', 'payin', 'STL-1', 'p-1', 'PLN', '10.00', '0.15', '9.85', 'credit')`,
      [running, running, running],
    );
    const before = await ledgerRows(old.db);
    await old.db.close();

    const db = await upgradedLedger(old.address, clock.now, cleanups);
    expect(await schemaVersion(db)).toBeGreaterThanOrEqual(ADDED);
    expect(inColumnsOf(before, await ledgerRows(db))).toEqual(before);
    const upgraded = createRepositories(db, clock.now);
    if (db.engine === 'sqlite') {
      expect(await db.get('SELECT count(*) AS n FROM main.settlement_staging')).toEqual({ n: 0 });
      await upgraded.settlementLines.stage(running, [line(2, 'p-1'), line(3, 'p-2'), line(4, 'p-1')]);
    }
    const keysOf = async (importId: number) =>
      (await db.all<{ line: number; line_key: string }>('SELECT line, line_key FROM settlement_lines WHERE import_id = ? ORDER BY line', [importId])).map((r) => `${r.line} ${r.line_key}`);

    expect(await upgraded.transaction(() => upgraded.settlementLines.commitStaged(running, profile.id))).toEqual({ added: 3, matched: 0 });
    expect(await keysOf(running)).toEqual(['2 payin|STL-1|p-1#1', '3 payin|STL-1|p-2#1', '4 payin|STL-1|p-1#2']);

    // Staged now: p-3 first seen (1), then p-3 again and p-4 whose key may repeat (null, as when its hash met p-3's).
    const next = await upgraded.statementFiles.createImport({ profileId: profile.id, kind: 'settlement', format: 'csv', source: 'S', fileName: 'b.csv', fileSize: 1, fileSha256: '', createdBy: null, startedAt });
    await upgraded.settlementLines.stage(next, [
      { ...line(2, 'p-3'), occurrence: 1 },
      { ...line(3, 'p-4'), occurrence: null },
      { ...line(4, 'p-3'), occurrence: null },
      { ...line(5, 'p-3'), occurrence: null },
      { ...line(6, 'p-1'), occurrence: 1 },
    ]);
    // p-1 was imported before: its first occurrence is already there.
    expect(await upgraded.transaction(() => upgraded.settlementLines.commitStaged(next, profile.id))).toEqual({ added: 4, matched: 0 });
    expect(await keysOf(next)).toEqual(['2 payin|STL-1|p-3#1', '3 payin|STL-1|p-4#1', '4 payin|STL-1|p-3#2', '5 payin|STL-1|p-3#3']);
  });
});
