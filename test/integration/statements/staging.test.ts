// Where an import's lines wait while its file is read: on a SQLite desk in the connection's own
// temporary tables, never in the ledger's file (nor its WAL), so a crash leaves none of them there;
// on a team server in the ledger's staging table, where any instance can commit or drop them. Two
// imports staged at once keep each other's lines: dropping one (SQLite empties the table whole when
// it can) leaves the other's.
import { describe, expect, it } from 'vitest';
import { stagedPayinLine } from '../../helpers/statements';
import { useHarness, type Harness } from '../verification/harness';

let h: Harness;
let profileId: string;
useHarness((started, id) => {
  h = started;
  profileId = id;
});

const line = (n: number, payinId: string) => ({ ...stagedPayinLine(n, payinId, 'S-STAGED', { currency: 'EUR', amount: '1.00', fee: '0.00', net: '1.00' }), occurrence: 1 });

describe("an import's staged lines", () => {
  it('wait outside a SQLite ledger file (in it on PostgreSQL), and dropping one import keeps the lines of another', async () => {
    const repos = h.repos();
    const begin = (fileName: string) =>
      repos.statementFiles.createImport({ profileId, kind: 'settlement', format: 'csv', source: 'Staging', fileName, fileSize: 10, fileSha256: '', createdBy: null, startedAt: new Date().toISOString() });
    const [first, second] = [await begin('first.csv'), await begin('second.csv')];
    await repos.transaction(() => repos.settlementLines.stage(first, [line(2, 'a-1'), line(3, 'a-2')]));
    await repos.transaction(() => repos.settlementLines.stage(second, [line(2, 'b-1')]));
    const ledger = h.core.ledger;
    const staged = async (importId: number) => (await ledger.get<{ n: number }>('SELECT count(*) AS n FROM settlement_staging WHERE import_id = ?', [importId]))?.n;
    expect([await staged(first), await staged(second)]).toEqual([2, 1]);
    if (ledger.engine === 'sqlite') {
      expect(await ledger.get('SELECT count(*) AS n FROM main.settlement_staging')).toEqual({ n: 0 });
      expect(await ledger.get('SELECT count(*) AS n FROM temp.settlement_staging')).toEqual({ n: 3 });
    }

    await repos.transaction(() => repos.settlementLines.dropStaged(first));
    expect([await staged(first), await staged(second)]).toEqual([0, 1]);
    await repos.transaction(() => repos.settlementLines.dropStaged(second));
    expect(await staged(second)).toBe(0);
  });
});
