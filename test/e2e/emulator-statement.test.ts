// The emulator's camt.053 bank statement read back with a real XML parser (Chromium's DOMParser,
// namespace-aware and strict: one bad byte and it reports a parsererror), the way an importer
// reads it: namespace, statements per account, balances, and each credit's references, with the
// elements in the schema's order. Needs no built app: the emulator runs in this process.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index';
import { admin, ManualClock, Receiver, startTestEmulator, succeededPayin } from '../emulator/helpers';
import { launchBrowser } from './harness';

const NS = 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.02';

let browser: Browser;
let page: Page;
let rc: Receiver;
let emu: EmulatorHandle;

beforeAll(async () => {
  browser = await launchBrowser();
  page = await browser.newPage();
  rc = await new Receiver().start();
  const clock = new ManualClock('2024-05-01T10:00:00Z');
  // Markup characters in the owner's name: the statement must escape them.
  emu = await startTestEmulator({ clock, merchant: { merchant_id: 'ACME & "Sons" <EU>', merchant_site_id: 's-1', merchant_token: 't-1' } });
  const eur = await succeededPayin(emu, rc.url(), { amount: 25.5, currency: 'EUR' });
  clock.ms += 1;
  await succeededPayin(emu, rc.url(), { amount: 1000, currency: 'JPY' });
  await admin(emu)('PUT', '/settlement-faults', { orphan_bank_line: { payin_ids: [eur.payin_id] } });
  clock.set('2024-05-02T00:00:00.050Z');
  await admin(emu)('POST', '/settlements/run', { mode: 'closed' });
});

afterAll(async () => {
  await emu?.close();
  await rc?.close();
  await browser?.close();
});

interface Parsed {
  error?: string;
  root?: string;
  ns?: string | null;
  msgId?: string;
  statements?: {
    children: string[];
    iban: string;
    ccy: string;
    owner: string;
    balances: string[][];
    entries: { children: string[]; amt: string; ccy: string; ind: string; sts: string; booked: string; value: string; ref: string; e2e: string; debtor: string; ustrd: string }[];
  }[];
}

/** Parses in the page; every value read through the namespace, as an importer would. */
function parse(xml: string): Promise<Parsed> {
  return page.evaluate(
    ({ xml, ns }) => {
      const doc = new DOMParser().parseFromString(xml, 'application/xml');
      const error = doc.getElementsByTagName('parsererror')[0];
      if (error) return { error: error.textContent ?? 'parsererror' };
      const all = (el: Element | Document, name: string): Element[] => Array.from(el.getElementsByTagNameNS(ns, name));
      const one = (el: Element | Document, name: string): Element => {
        const found = all(el, name)[0];
        if (!found) throw new Error(`no ${name}`);
        return found;
      };
      const text = (el: Element | Document, name: string): string => one(el, name).textContent ?? '';
      const kids = (el: Element): string[] => Array.from(el.children).map((c) => `${c.namespaceURI === ns ? '' : '!'}${c.localName}`);
      return {
        root: doc.documentElement.localName,
        ns: doc.documentElement.namespaceURI,
        msgId: text(one(doc, 'GrpHdr'), 'MsgId'),
        statements: all(doc, 'Stmt').map((stmt) => ({
          children: kids(stmt),
          iban: text(stmt, 'IBAN'),
          ccy: text(one(stmt, 'Acct'), 'Ccy'),
          owner: text(one(stmt, 'Ownr'), 'Nm'),
          balances: all(stmt, 'Bal').map((b) => [text(b, 'Cd'), one(b, 'Amt').getAttribute('Ccy') ?? '', text(b, 'Amt'), text(b, 'CdtDbtInd'), text(one(b, 'Dt'), 'Dt')]),
          entries: all(stmt, 'Ntry').map((n) => ({
            children: kids(n),
            amt: text(n, 'Amt'),
            ccy: one(n, 'Amt').getAttribute('Ccy') ?? '',
            ind: text(n, 'CdtDbtInd'),
            sts: text(n, 'Sts'),
            booked: text(one(n, 'BookgDt'), 'Dt'),
            value: text(one(n, 'ValDt'), 'Dt'),
            ref: text(n, 'AcctSvcrRef'),
            e2e: text(one(n, 'Refs'), 'EndToEndId'),
            debtor: text(one(n, 'Dbtr'), 'Nm'),
            ustrd: text(n, 'Ustrd'),
          })),
        })),
      };
    },
    { xml, ns: NS },
  );
}

test('a real XML parser reads the statement: namespace, accounts, balances and one credit per settlement', async () => {
  const xml = (await admin(emu)('GET', '/reports/bank-statement.xml')).text;
  const settlements = (await admin(emu)('GET', '/settlements')).json.settlements as { settlement_id: string; currency: string; net: string; bank_credit: { entry_ref: string } }[];
  const parsed = await parse(xml);
  expect(parsed.error).toBeUndefined();
  expect(parsed).toMatchObject({ root: 'Document', ns: NS, msgId: 'CAMT053-20240502-20240502-ALL' });
  const [eur, jpy] = parsed.statements ?? [];
  for (const stmt of [eur, jpy]) {
    expect(stmt?.children).toEqual(['Id', 'CreDtTm', 'FrToDt', 'Acct', 'Bal', 'Bal', 'TxsSummry', ...(stmt?.entries ?? []).map(() => 'Ntry')]);
    expect(stmt?.owner).toBe('Merchant ACME & "Sons" <EU>');
    expect(stmt?.iban).toMatch(/^DE\d{20}$/);
    for (const entry of stmt?.entries ?? []) {
      expect(entry.children).toEqual(['Amt', 'CdtDbtInd', 'Sts', 'BookgDt', 'ValDt', 'AcctSvcrRef', 'BkTxCd', 'NtryDtls']);
      expect(entry).toMatchObject({ ind: 'CRDT', sts: 'BOOK', booked: '2024-05-02', value: '2024-05-02', ccy: stmt?.ccy });
    }
  }
  const [eurSettlement, jpySettlement] = settlements;
  expect(eur?.ccy).toBe('EUR');
  expect(eur?.balances).toEqual([
    ['OPBD', 'EUR', '0.00', 'CRDT', '2024-05-02'],
    ['CLBD', 'EUR', '74.51', 'CRDT', '2024-05-02'],
  ]);
  expect(eur?.entries.map((e) => [e.amt, e.ref, e.e2e, e.ustrd, e.debtor])).toEqual([
    ['24.51', eurSettlement?.bank_credit.entry_ref, eurSettlement?.settlement_id, eurSettlement?.settlement_id, 'Paydesk Gateway Emulator'],
    ['50.00', expect.stringMatching(/^BNK-20240502-/), 'NOTPROVIDED', expect.stringMatching(/^INVOICE /), 'A. Customer'],
  ]);
  expect(jpy?.balances.map((b) => b[2])).toEqual(['0', '971']);
  expect(jpy?.entries.map((e) => [e.amt, e.e2e])).toEqual([['971', jpySettlement?.settlement_id]]);
});

test('the parser is strict: the same statement with one unescaped ampersand is refused', async () => {
  const xml = (await admin(emu)('GET', '/reports/bank-statement.xml')).text;
  expect((await parse(xml.replace('&amp;', '&'))).error).toBeTruthy();
});
