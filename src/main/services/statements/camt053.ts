// A camt.053 bank statement (ISO 20022 BankToCustomerStatement, any version from 001.02) read by
// fast-xml-parser with entity processing off. A document type or entity declaration is refused
// before anything is parsed: a statement has none, and entities can expand without bound or reach
// files and addresses outside it. The five predefined references (&amp; …) and character
// references in text are decoded afterwards, each to its one character. Only booked entries
// (Sts BOOK) are lines; each keeps the file's line its <Ntry> starts on. A batch booking (one
// <Ntry> whose several <TxDtls> each state their own amount, adding up to the entry's) becomes a
// line per transaction, each with its own references, remittance and payer; one whose details do
// not add up stays one line, its remittances joined.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { compareAmounts, sumAmounts } from '../../../shared/money';
import { clip } from '../../../shared/statement-layout';
import type { StagedBankLine } from '../../ledger/repositories/bank-lines';
import { keyed } from './bank-rows';
import { currencyAmount } from './cells';
import { StatementFileError } from './file-kind';

type Node = Record<string, unknown>;

const parser = new XMLParser({
  processEntities: false,
  ignoreAttributes: false,
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => ['Stmt', 'Ntry', 'TxDtls', 'Ustrd', 'Bal'].includes(name),
});

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Text as XML means it: predefined and character references decoded, nothing else. */
function xmlText(value: string): string {
  return value.replace(/&(amp|lt|gt|quot|apos|#\d{1,7}|#x[0-9a-fA-F]{1,6});/g, (whole, name: string) => {
    if (name in PREDEFINED) return PREDEFINED[name]!;
    const code = name.startsWith('#x') ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** An element's text (its #text when it has attributes too); null when it is absent or empty. */
function text(node: unknown): string | null {
  if (node === undefined || node === null) return null;
  if (typeof node === 'string') return node === '' ? null : xmlText(node);
  if (typeof node === 'object' && '#text' in (node as Node)) return text((node as Node)['#text']);
  return null;
}

const child = (node: unknown, ...path: string[]): unknown => path.reduce<unknown>((n, key) => (n && typeof n === 'object' ? (n as Node)[key] : undefined), node);
const list = (node: unknown): unknown[] => (Array.isArray(node) ? node : node === undefined ? [] : [node]);

/** The line each <Ntry> (with any namespace prefix) starts on, in document order. */
function entryLines(xml: string): number[] {
  const lines: number[] = [];
  const pattern = /<(?:[\w.-]+:)?Ntry[\s>]/g;
  let line = 1;
  let at = 0;
  for (let m = pattern.exec(xml); m !== null; m = pattern.exec(xml)) {
    for (let i = xml.indexOf('\n', at); i !== -1 && i < m.index; i = xml.indexOf('\n', i + 1)) line++;
    at = m.index;
    lines.push(line);
  }
  return lines;
}

/** YYYY-MM-DD of a camt date element (Dt, or DtTm's date). */
function dateOf(node: unknown): string | null {
  const value = text(child(node, 'Dt')) ?? text(child(node, 'DtTm'));
  return value === null ? null : value.slice(0, 10);
}

/**
 * The namespace of the root <Document>, from its start tag (the parser drops namespace declarations
 * with their prefixes): the one its own prefix, or no prefix, is declared for. A bank's file
 * declares others beside it (xmlns:xsi for its schemaLocation), in any order.
 */
function rootNamespace(xml: string): string {
  const start = /<(?:([\w.-]+):)?Document\b([^>]*)>/.exec(xml);
  if (!start) return '';
  const declaration = start[1] === undefined ? 'xmlns' : `xmlns:${start[1]}`;
  for (const attribute of start[2]!.matchAll(/([\w.:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    if (attribute[1] === declaration) return attribute[2] ?? attribute[3] ?? '';
  }
  return '';
}

/** What one <TxDtls> says of its transaction. */
interface Transaction {
  /** Its own amount and direction, when it states them (v.08+: Amt and CdtDbtInd; earlier: AmtDtls TxAmt). */
  amount: { value: string; currency: string | null; direction: 'credit' | 'debit' | null } | null;
  entryRef: string | null;
  endToEndId: string | null;
  remittance: string | null;
  counterparty: string | null;
}

function transactionOf(details: unknown, direction: 'credit' | 'debit'): Transaction {
  const amountNode = child(details, 'Amt') ?? child(details, 'AmtDtls', 'TxAmt', 'Amt') ?? child(details, 'AmtDtls', 'InstdAmt', 'Amt');
  const value = text(amountNode);
  const indicator = text(child(details, 'CdtDbtInd'));
  const remittance = list(child(details, 'RmtInf', 'Ustrd'))
    .map(text)
    .filter((t): t is string => t !== null)
    .join(' ');
  // The other party: who paid a credit, who was paid a debit.
  const party = direction === 'credit' ? 'Dbtr' : 'Cdtr';
  return {
    amount: value === null ? null : { value, currency: text(child(amountNode, '@_Ccy')), direction: indicator === 'CRDT' ? 'credit' : indicator === 'DBIT' ? 'debit' : null },
    entryRef: text(child(details, 'Refs', 'AcctSvcrRef')),
    endToEndId: text(child(details, 'Refs', 'EndToEndId')),
    remittance: remittance === '' ? null : remittance,
    counterparty: text(child(details, 'RltdPties', party, 'Nm')) ?? text(child(details, 'RltdPties', party, 'Pty', 'Nm')),
  };
}

/**
 * A batch booking's transactions as lines of their own, when each states its amount in the entry's
 * currency and direction and together they make the entry's amount exactly; else null (read as one).
 */
function splitBatch(transactions: readonly Transaction[], entry: { amount: string; currency: string; direction: 'credit' | 'debit' }): { transaction: Transaction; amount: string }[] | null {
  if (transactions.length < 2) return null;
  const amounts: string[] = [];
  for (const { amount } of transactions) {
    if (!amount || !/^\d{1,15}(\.\d{1,10})?$/.test(amount.value)) return null;
    if ((amount.currency ?? entry.currency) !== entry.currency || (amount.direction ?? entry.direction) !== entry.direction) return null;
    amounts.push(amount.value);
  }
  if (compareAmounts(sumAmounts(amounts), entry.amount) !== 0) return null;
  return transactions.map((transaction, i) => ({ transaction, amount: amounts[i]! }));
}

export function refuseDeclarations(xml: string): void {
  const declaration = /<!(DOCTYPE|ENTITY)/i.exec(xml);
  if (declaration) {
    const line = xml.slice(0, declaration.index).split('\n').length;
    throw new StatementFileError(line, `the file declares a document type or entities (<!${declaration[1]!.toUpperCase()} …>): a bank statement has none, and entities can expand or reach outside files, so it is refused`);
  }
}

export function camt053Lines(xml: string): StagedBankLine[] {
  refuseDeclarations(xml);
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new StatementFileError(valid.err.line, `malformed XML: ${valid.err.msg}`);
  const document = parser.parse(xml) as Node;
  const root = child(document, 'Document');
  const statement = child(root, 'BkToCstmrStmt');
  const namespace = rootNamespace(xml);
  if (!statement || !/camt\.053/.test(namespace)) {
    const name = Object.keys(document).find((k) => !k.startsWith('?')) ?? 'none';
    throw new StatementFileError(null, `this XML is not a camt.053 statement (its root is <${clip(name, 30)}>${namespace ? ` in ${clip(namespace, 60)}` : ''})`);
  }
  const lines = entryLines(xml);
  const result: StagedBankLine[] = [];
  let index = 0;
  for (const stmt of list(child(statement, 'Stmt'))) {
    const account = text(child(stmt, 'Acct', 'Id', 'IBAN')) ?? text(child(stmt, 'Acct', 'Id', 'Othr', 'Id'));
    const accountCurrency = text(child(stmt, 'Acct', 'Ccy'));
    for (const entry of list(child(stmt, 'Ntry'))) {
      const line = lines[index++] ?? null;
      const fail = (reason: string): never => {
        throw new StatementFileError(line, `entry ${index}: ${reason}`);
      };
      const status = text(child(entry, 'Sts')) ?? text(child(entry, 'Sts', 'Cd'));
      if (status !== null && status !== 'BOOK') continue;
      const amountNode = child(entry, 'Amt');
      const currency = text(child(amountNode, '@_Ccy')) ?? accountCurrency ?? fail('its amount names no currency (Amt Ccy)');
      if (!/^[A-Z]{3}$/.test(currency)) fail(`"${clip(currency)}" is not a currency code`);
      const amount = text(amountNode) ?? fail('has no amount (Amt)');
      if (!/^\d{1,15}(\.\d{1,10})?$/.test(amount)) fail(`"${clip(amount)}" is not an amount`);
      const indicator = text(child(entry, 'CdtDbtInd'));
      if (indicator !== 'CRDT' && indicator !== 'DBIT') fail(`its credit/debit indicator is "${clip(indicator ?? '')}", not CRDT or DBIT`);
      const direction = indicator === 'CRDT' ? 'credit' : 'debit';
      const transactions = list(child(entry, 'NtryDtls')).flatMap((d) => list(child(d, 'TxDtls'))).map((d) => transactionOf(d, direction));
      const bookingDate = dateOf(child(entry, 'BookgDt')) ?? dateOf(child(entry, 'ValDt')) ?? fail('has no booking date (BookgDt)');
      const common = { line: line ?? index, account, currency, direction, bookingDate, valueDate: dateOf(child(entry, 'ValDt')) } as const;
      const entryRef = text(child(entry, 'AcctSvcrRef'));
      const batch = splitBatch(transactions, { amount, currency, direction });
      if (batch) {
        // Each transaction keeps its bank's reference; without one, the entry's with its place in the batch.
        batch.forEach(({ transaction: t, amount: part }, i) =>
          result.push(keyed({ ...common, amount: currencyAmount(part, currency), entryRef: t.entryRef ?? (entryRef === null ? null : `${entryRef}/${i + 1}`), endToEndId: t.endToEndId, remittance: t.remittance, counterparty: t.counterparty })),
        );
        continue;
      }
      const [first] = transactions;
      const remittance = transactions.map((t) => t.remittance).filter((r): r is string => r !== null).join(' ');
      result.push(
        keyed({
          ...common,
          amount: currencyAmount(amount, currency),
          entryRef: entryRef ?? first?.entryRef ?? null,
          endToEndId: first?.endToEndId ?? null,
          remittance: remittance === '' ? null : remittance,
          counterparty: first?.counterparty ?? null,
        }),
      );
    }
  }
  return result;
}
