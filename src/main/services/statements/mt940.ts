// An MT940 bank statement read by mt940js, which checks its tags and that each statement's
// balances add up. Its amounts are floats rounded to cents, so each line's amount is read again,
// exactly, from its :61: tag's own text (the tags are kept with parse(data, true)); the dates too.
// :86: is the remittance information (a structured one's purpose, its pieces joined); the customer
// reference (unless NONREF, then a structured :86:'s EREF+) the end-to-end reference; the bank
// reference after // the bank's own; a structured :86:'s ?32/?33 the other party.
import { Parser, type Mt940Tag } from 'mt940js';
import { clip } from '../../../shared/statement-layout';
import type { StagedBankLine } from '../../ledger/repositories/bank-lines';
import { keyed } from './bank-rows';
import { currencyAmount } from './cells';
import { StatementFileError } from './file-kind';

/** The line of each :61: tag in the file, in order. */
function statementLineNumbers(text: string): number[] {
  const numbers: number[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.startsWith(':61:')) numbers.push(i + 1);
  });
  return numbers;
}

const fullYear = (yy: string): number => 2000 + Number.parseInt(yy, 10);
const isoDate = (year: number, month: string, day: string): string => `${year}-${month}-${day}`;

/** The SEPA keywords a German :86: purpose is built of ("EREF+…SVWZ+…"). */
const SEPA_KEYWORD = /(EREF|KREF|MREF|CRED|DEBT|SVWZ|ABWA|ABWE|COAM|OAMT)\+/g;

/**
 * What a structured :86: (subfields ?00…?63, as German banks write it) says: the purpose, written
 * in 27-character pieces ?20…?29 and ?60…?63 that split words and references anywhere, joined again
 * as they were cut; its end-to-end reference (EREF+); the other party's name (?32, ?33). Null when
 * the :86: has no such subfields.
 */
function structured86(details: Readonly<Record<string, string>> | undefined): { purpose: string; endToEndId: string | null; counterparty: string | null } | null {
  if (!details) return null;
  const pieces = Object.keys(details)
    .filter((key) => /^(2\d|6[0-3])$/.test(key))
    .sort()
    .map((key) => details[key]!);
  if (pieces.length === 0) return null;
  const purpose = pieces.join('');
  let endToEndId: string | null = null;
  const keywords = [...purpose.matchAll(SEPA_KEYWORD)];
  keywords.forEach((m, i) => {
    if (m[1] === 'EREF') endToEndId = purpose.slice(m.index + m[0].length, keywords[i + 1]?.index ?? purpose.length).trim() || null;
  });
  const name = [details['32'], details['33']].filter((part) => part !== undefined && part !== '').join('');
  return { purpose, endToEndId, counterparty: name === '' ? null : name };
}

export function mt940Lines(text: string): StagedBankLine[] {
  let statements;
  try {
    statements = new Parser().parse(text, true);
  } catch (error) {
    throw new StatementFileError(null, `not a readable MT940 statement: ${clip((error as Error).message, 200)}`);
  }
  if (statements.length === 0) throw new StatementFileError(null, 'not an MT940 statement: it holds no statement (no :20: … :62F: block)');
  const numbers = statementLineNumbers(text);
  const lines: StagedBankLine[] = [];
  let index = 0;
  for (const statement of statements) {
    const tags = (statement.tags ?? []).filter((t: Mt940Tag) => t.id === 61);
    statement.transactions.forEach((transaction, i) => {
      const line = numbers[index++] ?? index;
      const tag = tags[i];
      const match = tag ? new RegExp(tag.re.source).exec(tag.data) : null;
      if (!match) throw new StatementFileError(line, 'a :61: statement line that cannot be read again');
      const [, yy = '', mm = '', dd = '', , entryMonth, entryDay, mark = '', , rawAmount = ''] = match;
      const currency = statement.currency;
      if (!/^[A-Z]{3}$/.test(currency)) throw new StatementFileError(line, `"${clip(currency)}" is not a currency code`);
      const amount = rawAmount.replace(',', '.').replace(/\.$/, '');
      if (!/^\d{1,15}(\.\d+)?$/.test(amount)) throw new StatementFileError(line, `"${clip(rawAmount)}" is not an amount`);
      const debit = mark.endsWith('D') !== mark.startsWith('R');
      const valueDate = isoDate(fullYear(yy), mm, dd);
      const structured = structured86(transaction.structuredDetails);
      const given = transaction.reference.trim();
      const reference = given === '' || given.toUpperCase() === 'NONREF' ? (structured?.endToEndId ?? given) : given;
      lines.push(
        keyed({
          line,
          account: statement.accountIdentification || null,
          currency,
          amount: currencyAmount(amount, currency),
          direction: debit ? 'debit' : 'credit',
          bookingDate: entryMonth && entryDay ? isoDate(fullYear(yy), entryMonth, entryDay) : valueDate,
          valueDate,
          entryRef: transaction.bankReference.trim() || null,
          endToEndId: reference === '' ? null : reference,
          remittance: structured?.purpose ?? (transaction.details.replace(/\n/g, '') || null),
          counterparty: structured?.counterparty ?? null,
        }),
      );
    });
  }
  return lines;
}
