// The demo bank statement, ISO 20022 camt.053.001.02 (BankToCustomerStatementV02): one Stmt per
// account (currency), opening and closing booked balances, one Ntry per credit. Elements appear
// in the schema's order; only what a statement of credit transfers needs is written.
import { amountText, compareAmounts, sumAmounts } from '../../shared/money';
import { DEMO_BANK } from '../domain/settlement/bank-account';
import type { BankEntry } from '../domain/settlement/draft';
import type { BankAccount } from '../store/bank';
import { buildXml, type XmlElement } from './xml';

export const CAMT053_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.02';

export interface AccountStatement {
  account: BankAccount;
  /** Booked balance at the start of `from`. */
  opening: string;
  entries: readonly BankEntry[];
}

export interface StatementInput {
  /** Whose accounts these are (Acct/Ownr/Nm). */
  owner: string;
  /** First and last booking dates covered, YYYY-MM-DD. */
  from: string;
  to: string;
  /** When the statement's content was last changed: the same range reads the same until then. */
  createdAt: string;
  /** Named in the message id when the statement covers one currency. */
  currency: string | undefined;
  statements: readonly AccountStatement[];
}

const compact = (date: string): string => date.replaceAll('-', '');

function amount(value: string, currency: string): XmlElement {
  return { '@_Ccy': currency, '#text': amountText(value.replace(/^-/, ''), currency) };
}

function balance(code: 'OPBD' | 'CLBD', value: string, currency: string, date: string): XmlElement {
  return {
    Tp: { CdOrPrtry: { Cd: code } },
    Amt: amount(value, currency),
    CdtDbtInd: compareAmounts(value, '0') < 0 ? 'DBIT' : 'CRDT',
    Dt: { Dt: date },
  };
}

function entry(e: BankEntry): XmlElement {
  return {
    Amt: amount(e.amount, e.currency),
    CdtDbtInd: 'CRDT',
    Sts: 'BOOK',
    BookgDt: { Dt: e.booking_date },
    ValDt: { Dt: e.booking_date },
    AcctSvcrRef: e.entry_ref,
    // Received credit transfer: SEPA (ESCT) in euros, cross-border (XBCT) otherwise.
    BkTxCd: { Domn: { Cd: 'PMNT', Fmly: { Cd: 'RCDT', SubFmlyCd: e.currency === 'EUR' ? 'ESCT' : 'XBCT' } } },
    NtryDtls: {
      TxDtls: {
        Refs: { AcctSvcrRef: e.entry_ref, EndToEndId: e.end_to_end_id },
        RltdPties: { Dbtr: { Nm: e.counterparty } },
        RmtInf: { Ustrd: e.remittance },
      },
    },
  };
}

function statement(s: AccountStatement, input: StatementInput): XmlElement {
  const { currency, iban } = s.account;
  const booked = s.entries.map((e) => e.amount);
  const closing = sumAmounts([s.opening, ...booked]);
  const credited = amountText(sumAmounts(booked), currency);
  return {
    Id: `${currency}-${compact(input.from)}-${compact(input.to)}`,
    CreDtTm: input.createdAt,
    FrToDt: { FrDtTm: `${input.from}T00:00:00.000Z`, ToDtTm: `${input.to}T23:59:59.999Z` },
    Acct: { Id: { IBAN: iban }, Ccy: currency, Ownr: { Nm: input.owner }, Svcr: { FinInstnId: { BIC: DEMO_BANK.bic } } },
    Bal: [balance('OPBD', s.opening, currency, input.from), balance('CLBD', closing, currency, input.to)],
    ...(s.entries.length > 0
      ? { TxsSummry: { TtlNtries: { NbOfNtries: String(s.entries.length), Sum: credited, TtlNetNtryAmt: credited, CdtDbtInd: 'CRDT' } } }
      : {}),
    ...(s.entries.length > 0 ? { Ntry: s.entries.map(entry) } : {}),
  };
}

export function camt053(input: StatementInput): string {
  return buildXml({
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    Document: {
      '@_xmlns': CAMT053_NAMESPACE,
      BkToCstmrStmt: {
        GrpHdr: {
          MsgId: `CAMT053-${compact(input.from)}-${compact(input.to)}-${input.currency ?? 'ALL'}`,
          CreDtTm: input.createdAt,
          MsgPgntn: { PgNb: '1', LastPgInd: 'true' },
        },
        Stmt: input.statements.map((s) => statement(s, input)),
      },
    },
  });
}
