// The files a reconciliation imports: the settlement report (CSV) and the demo bank statement
// (camt.053). Their exact text for a known day, their ranges, and that they read the same after
// a restart. (test/e2e/emulator-statement.test.ts parses the statement with a real XML parser.)
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index';
import { CHECKS } from '../../src/shared/spec/field-checks';
import { tempDir } from '../helpers/temp-dir';
import { admin, api, countingIds, csvRecords, ManualClock, payoutBody, Receiver, startTestEmulator, succeededPayin, type Loose } from './helpers';

let rc: Receiver;
beforeAll(async () => {
  rc = await new Receiver().start();
});
afterAll(async () => {
  await rc.close();
});

/**
 * A known day: a top-up and a payout on the EUR wallet, three pay-ins (two EUR, one JPY; their
 * references a formula, and a comma and quotes), an orphan bank line armed, then the day settled.
 */
async function knownDay(clock: ManualClock, opts: Parameters<typeof startTestEmulator>[0] = {}): Promise<EmulatorHandle> {
  const emu = await startTestEmulator({ clock, ids: countingIds(), merchant: { merchant_id: 'm-1', merchant_site_id: 's-1', merchant_token: 't-1' }, ...opts });
  clock.set('2024-05-01T09:00:00Z');
  await admin(emu)('POST', '/wallet/topups', { currency: 'EUR', amount: '500' });
  clock.set('2024-05-01T09:30:00Z');
  await api(emu)('/payouts/create', payoutBody(emu, 'open_banking', rc.url(), { amount: 100.25, currency: 'EUR', merchantReference: '@SUM(A1)' }));
  clock.set('2024-05-01T10:00:00Z');
  await succeededPayin(emu, rc.url(), { amount: 25.5, currency: 'EUR', request_id: 'order-1' });
  clock.set('2024-05-01T10:00:01Z');
  await succeededPayin(emu, rc.url(), { amount: 10, currency: 'EUR', request_id: '=1+2' }, 'blik');
  clock.set('2024-05-01T10:00:02Z');
  await succeededPayin(emu, rc.url(), { amount: 1000, currency: 'JPY', request_id: 'a,"b"' });
  await admin(emu)('PUT', '/settlement-faults', { orphan_bank_line: { next: 1 } });
  clock.set('2024-05-02T00:00:00.050Z');
  await admin(emu)('POST', '/settlements/run', { mode: 'closed' });
  return emu;
}

const REPORT = [
  'type,settlement_id,wallet_id,payin_id,request_id,payout_id,merchantReference,topup_id,method,currency,amount,fee,net,direction,time,booking_date',
  'topup,,WAL-EUR-0000000002,,,,,00000000-0000-4000-8000-000000000001,,EUR,500.00,0.00,500.00,credit,2024-05-01T09:00:00.000Z,2024-05-01',
  "payout,,WAL-EUR-0000000002,,,00000000-0000-4000-8000-000000000003,'@SUM(A1),,open_banking,EUR,100.25,0.00,100.25,debit,2024-05-01T09:30:00.000Z,2024-05-01",
  'payin,STL-20240501-EUR-0000000007,,00000000-0000-4000-8000-000000000004,order-1,,,,credit_card,EUR,25.50,0.99,24.51,credit,2024-05-01T10:00:00.000Z,2024-05-02',
  "payin,STL-20240501-EUR-0000000007,,00000000-0000-4000-8000-000000000005,'=1+2,,,,blik,EUR,10.00,0.15,9.85,credit,2024-05-01T10:00:01.000Z,2024-05-02",
  'payin,STL-20240501-JPY-000000000C,,00000000-0000-4000-8000-000000000006,"a,""b""",,,,credit_card,JPY,1000,29,971,credit,2024-05-01T10:00:02.000Z,2024-05-02',
  '',
].join('\r\n');

/** The JPY statement of the known day, without its line breaks and indentation. */
const JPY_STATEMENT = [
  '<?xml version="1.0" encoding="UTF-8"?>',
  '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>',
  '<GrpHdr><MsgId>CAMT053-20240502-20240502-JPY</MsgId><CreDtTm>2024-05-02T00:00:00.050Z</CreDtTm><MsgPgntn><PgNb>1</PgNb><LastPgInd>true</LastPgInd></MsgPgntn></GrpHdr>',
  '<Stmt><Id>JPY-20240502-20240502</Id><CreDtTm>2024-05-02T00:00:00.050Z</CreDtTm>',
  '<FrToDt><FrDtTm>2024-05-02T00:00:00.000Z</FrDtTm><ToDtTm>2024-05-02T23:59:59.999Z</ToDtTm></FrToDt>',
  '<Acct><Id><IBAN>DE78370400440000000014</IBAN></Id><Ccy>JPY</Ccy><Ownr><Nm>Merchant m-1</Nm></Ownr><Svcr><FinInstnId><BIC>EMULDEFFXXX</BIC></FinInstnId></Svcr></Acct>',
  '<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="JPY">0</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2024-05-02</Dt></Dt></Bal>',
  '<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="JPY">971</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2024-05-02</Dt></Dt></Bal>',
  '<TxsSummry><TtlNtries><NbOfNtries>1</NbOfNtries><Sum>971</Sum><TtlNetNtryAmt>971</TtlNetNtryAmt><CdtDbtInd>CRDT</CdtDbtInd></TtlNtries></TxsSummry>',
  '<Ntry><Amt Ccy="JPY">971</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2024-05-02</Dt></BookgDt><ValDt><Dt>2024-05-02</Dt></ValDt>',
  '<AcctSvcrRef>BNK-20240502-000000000D</AcctSvcrRef><BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>XBCT</SubFmlyCd></Fmly></Domn></BkTxCd>',
  '<NtryDtls><TxDtls><Refs><AcctSvcrRef>BNK-20240502-000000000D</AcctSvcrRef><EndToEndId>STL-20240501-JPY-000000000C</EndToEndId></Refs>',
  '<RltdPties><Dbtr><Nm>Paydesk Gateway Emulator</Nm></Dbtr></RltdPties><RmtInf><Ustrd>STL-20240501-JPY-000000000C</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>',
  '</Stmt></BkToCstmrStmt></Document>',
].join('');

const get = async (emu: EmulatorHandle, path: string) => admin(emu)('GET', path);

describe('the settlement report (CSV)', () => {
  test('one line per pay-in, payout and top-up, in booking order, formula-safe, CRLF, with a header row', async () => {
    const emu = await knownDay(new ManualClock('2024-05-01T08:00:00Z'));
    try {
      const res = await get(emu, '/reports/settlement.csv');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="settlement-report-start-now.csv"');
      expect(res.text).toBe(REPORT);
      // A spreadsheet reads the references back whole (behind the formula guard).
      expect(csvRecords(res.text).map((r) => r.request_id)).toEqual(['', '', 'order-1', "'=1+2", 'a,"b"']);
    } finally {
      await emu.close();
    }
  });

  test('one settlement alone, by its own route or by settlement_id; unknown ids are 404', async () => {
    const emu = await knownDay(new ManualClock('2024-05-01T08:00:00Z'));
    try {
      const own = await get(emu, '/settlements/STL-20240501-EUR-0000000007/report.csv');
      expect(own.text).toBe([...REPORT.split('\r\n').slice(0, 1), ...REPORT.split('\r\n').slice(3, 5), ''].join('\r\n'));
      expect(own.headers.get('content-disposition')).toBe('attachment; filename="settlement-STL-20240501-EUR-0000000007.csv"');
      expect((await get(emu, '/reports/settlement.csv?settlement_id=STL-20240501-EUR-0000000007')).text).toBe(own.text);
      expect((await get(emu, '/settlements/STL-nope/report.csv')).status).toBe(404);
      expect((await get(emu, '/reports/settlement.csv?settlement_id=STL-nope')).status).toBe(404);
    } finally {
      await emu.close();
    }
  });

  test('a range keeps settlements by value date and wallet movements by date, both ends included; bad ranges are 400', async () => {
    const emu = await knownDay(new ManualClock('2024-05-01T08:00:00Z'));
    try {
      const types = async (query: string) => csvRecords((await get(emu, `/reports/settlement.csv?${query}`)).text).map((r) => `${r.type} ${r.currency}`);
      expect(await types('from=2024-05-01&to=2024-05-01')).toEqual(['topup EUR', 'payout EUR']);
      expect(await types('from=2024-05-02')).toEqual(['payin EUR', 'payin EUR', 'payin JPY']);
      expect(await types('to=2024-05-02&currency=JPY')).toEqual(['payin JPY']);
      expect(await types('from=2024-05-03')).toEqual([]);
      for (const query of ['from=2024-5-1', 'to=2024-02-30', 'from=2024-05-02&to=2024-05-01', 'currency=eur']) {
        expect((await get(emu, `/reports/settlement.csv?${query}`)).status, query).toBe(400);
      }
      expect((await get(emu, '/settlements?from=2024-05-02&currency=JPY')).json.count).toBe(1);
      expect((await get(emu, '/settlements?from=2024-05-03')).json.count).toBe(0);
    } finally {
      await emu.close();
    }
  });
});

describe('the bank statement (camt.053.001.02)', () => {
  test('one statement per account, one credit per settlement, referenced by the settlement id; exact text', async () => {
    const emu = await knownDay(new ManualClock('2024-05-01T08:00:00Z'));
    try {
      const jpy = await get(emu, '/reports/bank-statement.xml?currency=JPY');
      expect(jpy.status).toBe(200);
      expect(jpy.headers.get('content-type')).toBe('application/xml; charset=utf-8');
      expect(jpy.text.replace(/\n\s*/g, '')).toBe(JPY_STATEMENT);
      expect(jpy.text).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<Document /);

      const all = (await get(emu, '/reports/bank-statement.xml')).text;
      const ibans = [...all.matchAll(/<IBAN>(\w+)<\/IBAN>/g)].map((m) => m[1] as string);
      expect(ibans).toEqual(['DE62370400440000000011', 'DE78370400440000000014']);
      for (const iban of ibans) expect(CHECKS.iban(iban, { parent: {}, method: undefined, siteId: undefined, values: undefined, now: 0 })).toBeNull();
      const eur = all.slice(0, all.indexOf('<Stmt>', all.indexOf('<Stmt>') + 1));
      // The settlement's credit (24.51 + 9.85), then the orphan line the knob added.
      expect([...eur.matchAll(/<Ntry>\s*<Amt Ccy="EUR">([\d.]+)<\/Amt>/g)].map((m) => m[1])).toEqual(['34.36', '50.00']);
      expect([...eur.matchAll(/<EndToEndId>([^<]+)</g)].map((m) => m[1])).toEqual(['STL-20240501-EUR-0000000007', 'NOTPROVIDED']);
      expect(eur).toContain('<Amt Ccy="EUR">84.36</Amt>');
    } finally {
      await emu.close();
    }
  });

  test('balances carry over: a later range opens with every earlier credit', async () => {
    const clock = new ManualClock('2024-05-01T08:00:00Z');
    const emu = await knownDay(clock);
    try {
      clock.set('2024-05-02T10:00:00Z');
      await succeededPayin(emu, rc.url(), { amount: 100, currency: 'EUR' }, 'open_banking');
      clock.set('2024-05-03T00:00:00.050Z');
      await admin(emu)('POST', '/settlements/run', { mode: 'closed' });
      const day3 = (await get(emu, '/reports/bank-statement.xml?from=2024-05-03&to=2024-05-03&currency=EUR')).text;
      const balances = [...day3.matchAll(/<Cd>(OPBD|CLBD)<\/Cd>\s*<\/CdOrPrtry>\s*<\/Tp>\s*<Amt Ccy="EUR">([\d.]+)</g)].map((m) => `${m[1]} ${m[2]}`);
      expect(balances).toEqual(['OPBD 84.36', 'CLBD 183.76']); // 100.00 less 0.50 + 0.10
      const empty = (await get(emu, '/reports/bank-statement.xml?from=2024-06-01&to=2024-06-30&currency=EUR')).text;
      expect(empty).not.toContain('<Ntry>');
      expect(empty).toContain('<Amt Ccy="EUR">183.76</Amt>');
      expect((await get(emu, '/reports/bank-statement.xml?currency=USD')).status).toBe(404);
      expect((await get(emu, '/reports/bank-statement.xml?from=2024-05-03&to=2024-05-01')).status).toBe(400);
    } finally {
      await emu.close();
    }
  });

  test('before anything is settled there is no account: 404', async () => {
    const emu = await startTestEmulator();
    try {
      const res = await get(emu, '/reports/bank-statement.xml');
      expect(res.status).toBe(404);
      expect(res.json.message).toMatch(/nothing was settled/);
      expect((await get(emu, '/reports/settlement.csv')).text).toBe(`${REPORT.split('\r\n')[0] as string}\r\n`);
    } finally {
      await emu.close();
    }
  });
});

describe('with --data', () => {
  test('settlements, report and statement read the same, byte for byte, after a restart; nothing is settled twice', async () => {
    const { dir, cleanup } = tempDir('paydesk-emu-reports-');
    const file = `${dir}/state.db`;
    const clock = new ManualClock('2024-05-01T08:00:00Z');
    const read = async (emu: EmulatorHandle): Promise<Loose> => ({
      settlements: (await get(emu, '/settlements')).text,
      report: (await get(emu, '/reports/settlement.csv')).text,
      one: (await get(emu, '/settlements/STL-20240501-EUR-0000000007/report.csv')).text,
      statement: (await get(emu, '/reports/bank-statement.xml')).text,
      faults: (await get(emu, '/settlement-faults')).text,
    });
    try {
      const first = await knownDay(clock, { dataFile: file });
      const before = await read(first);
      expect(before.report).toBe(REPORT);
      expect(await read(first)).toEqual(before);
      await first.close();
      clock.set('2024-05-02T12:00:00Z');
      const second = await startTestEmulator({ clock, dataFile: file });
      try {
        expect((await admin(second)('POST', '/settlements/run')).json.settlements).toEqual([]);
        expect(await read(second)).toEqual(before);
      } finally {
        await second.close();
      }
    } finally {
      cleanup();
    }
  });
});
