// A payout CSV in the renderer: decoded in the encoding it was saved in (csv-encoding.ts), parsed
// with Papa Parse (quotes, embedded commas and newlines, BOM, delimiters guessed; each row named by
// the file's own line number), its columns mapped onto the payout's fields (guessed from the headers, then
// the user's to change), and each row turned into the manual form's shape and checked with the
// shared validator — in slices, so a 10,000-row file never freezes the window.
import Papa from 'papaparse';
import { BATCH_MAX_ROWS, type BatchCheckView, type BatchRowForm, type LimitsList, type PayoutMatch } from '../../../shared/contract';
import { compareAmounts, parseDecimal, sumAmounts, totalsByCurrency, type CurrencyTotal } from '../../../shared/money';
import { allPayoutFormPaths, type PayoutInputPath } from '../../../shared/spec/form-fields';
import { samplePayoutForm } from '../../../shared/spec/samples';
import { isPayoutMethod, PAYOUT_METHODS, type PayoutMethod } from '../../../shared/spec/methods';
import { formatMoney } from '../transactions/format';
import { decodeBytes, detectEncoding, type DetectedEncoding } from '../../../shared/file-encoding';
import { payoutProblems, toPayoutForm, type FormValues } from './validate';

export interface ParsedCsv {
  fileName: string;
  /** The encoding the file was read in (a TextDecoder label: csv-encoding.ts). */
  encoding: string;
  headers: string[];
  /** Data rows (the header row excluded); `line` is the file's line number where the row starts (the header's is 1 when it is first). */
  rows: { line: number; cells: string[] }[];
}

/** A chosen file as bytes, with the encoding found for it: the mapping step decodes it again when the person picks another. */
export interface CsvFile {
  fileName: string;
  bytes: Uint8Array;
  detected: DetectedEncoding;
}

/** Card payouts are not batched (a batch is stored to survive a crash; card numbers never are). */
export const CARD_NOT_BATCHED = 'card payouts are not made in batches (card numbers are never stored, and a batch is): use the manual payout form';

type CardPath = Extract<PayoutInputPath, `paymentDetails.card${string}`>;
/** A field a column can be mapped to. */
export type MappingTarget = 'method' | Exclude<PayoutInputPath, CardPath>;
const isCardPath = (path: PayoutInputPath): path is CardPath => path.startsWith('paymentDetails.card');

/** The fields a column can be mapped to: method, then every non-card payout field. */
export const MAPPING_TARGETS: MappingTarget[] = ['method', ...allPayoutFormPaths().filter((path): path is Exclude<PayoutInputPath, CardPath> => !isCardPath(path))];

export interface Mapping {
  /** Field path → column index (null: not in the file). */
  columns: Record<string, number | null>;
  /** Used when no column holds the method. */
  fixedMethod: PayoutMethod | null;
}

/** How a payout file is parsed: blank lines (also whitespace-only ones) skipped, delimiter guessed. */
const PARSE_CONFIG = { skipEmptyLines: 'greedy' } as const;

/** The file's bytes and the encoding they seem to be in. */
export async function readCsvFile(file: File): Promise<CsvFile> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  return { fileName: file.name, bytes, detected: detectEncoding(bytes) };
}

/** The file decoded in `encoding` (the detected one unless the person chose another) and parsed. Throws an Error saying what is wrong with the file. */
export function parseCsvBytes(file: CsvFile, encoding: string = file.detected.encoding): ParsedCsv {
  return parseCsvText(file.fileName, decodeBytes(file.bytes, encoding), encoding);
}

/** Text already decoded, parsed as a payout file (a leading BOM dropped). Throws an Error saying what is wrong with the file. */
export function parseCsvText(fileName: string, text: string, encoding = 'utf-8'): ParsedCsv {
  const source = text.replace(/^\ufeff/, '');
  // Each row with the offset it starts after (where the row before it ended); lines are counted once the parser has said which line break the file uses.
  const parsed: { from: number; cells: string[] }[] = [];
  let fatal: { from: number; message: string } | null = null;
  let cursor = 0;
  let linebreak = '\n';
  Papa.parse<string[]>(source, {
    ...PARSE_CONFIG,
    step: (result) => {
      const from = cursor;
      cursor = result.meta.cursor;
      linebreak = result.meta.linebreak || linebreak;
      const quotes = result.errors.find((e) => e.type === 'Quotes');
      if (quotes && !fatal) fatal = { from, message: quotes.message };
      parsed.push({ from, cells: result.data });
    },
  });
  const lineOf = fileLines(source, linebreak);
  const [header, ...data] = parsed;
  if (!header || header.cells.every((cell) => cell.trim() === '')) throw new Error('The file is empty: the first row must name the columns.');
  if (data.length === 0) throw new Error('The file has a header row but no payouts.');
  if (data.length > BATCH_MAX_ROWS) throw new Error(`The file has ${data.length.toLocaleString()} rows; a batch holds at most ${BATCH_MAX_ROWS.toLocaleString()}. Split it.`);
  const quotes = fatal as { from: number; message: string } | null;
  if (quotes) throw new Error(`Line ${lineOf(quotes.from)}: ${quotes.message}. Check the quotes in the file.`);
  return { fileName, encoding, headers: header.cells.map((h) => h.trim()), rows: data.map((row) => ({ line: lineOf(row.from), cells: row.cells })) };
}

/**
 * The file's line number of the row that starts after offset `from` (where the row before it
 * ended): blank and whitespace-only lines in between are passed over, as the parser passes them,
 * and lines end where the parser's line break is (CRLF, LF or CR, as it found in the file). A
 * quoted cell over several lines counts them all, so every row is named by the line a text editor
 * or spreadsheet shows it on.
 */
function fileLines(text: string, linebreak: string): (from: number) => number {
  const starts = [0];
  for (let at = text.indexOf(linebreak); at !== -1; at = text.indexOf(linebreak, at + linebreak.length)) starts.push(at + linebreak.length);
  const lineAt = (offset: number) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] as number) <= offset) low = mid;
      else high = mid - 1;
    }
    return low;
  };
  return (from) => {
    let line = lineAt(from);
    while (line + 1 < starts.length && text.slice(starts[line], starts[line + 1]).trim() === '') line++;
    return line + 1;
  };
}

const normalise = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Header spellings seen in payout files, by field (normalised: lower case, letters and digits);
 * keyed by every mapping target, so a payout field added to the rule table fails the typecheck
 * until its spellings are here.
 */
const ALIASES: Readonly<Record<MappingTarget, readonly string[]>> = {
  method: ['method', 'paymentmethod', 'payoutmethod', 'type'],
  amount: ['amount', 'sum', 'value', 'payoutamount'],
  currency: ['currency', 'ccy', 'cur', 'currencycode'],
  country: ['country', 'countrycode', 'beneficiarycountry'],
  merchantReference: ['merchantreference', 'reference', 'ref', 'payoutreference', 'merchantref'],
  'customer.firstName': ['firstname', 'first', 'givenname', 'customerfirstname'],
  'customer.lastName': ['lastname', 'last', 'surname', 'familyname', 'customerlastname'],
  'customer.email': ['email', 'emailaddress', 'mail', 'customeremail'],
  'customer.phone': ['phone', 'mobile', 'telephone', 'tel', 'phonenumber'],
  'paymentDetails.iban': ['iban'],
  'paymentDetails.bic': ['bic', 'swift', 'swiftcode', 'bicswift'],
  'paymentDetails.accountHolder': ['accountholder', 'holder', 'accountname', 'beneficiaryname', 'beneficiary'],
  'paymentDetails.walletAddress': ['walletaddress', 'wallet', 'address', 'cryptoaddress'],
  'paymentDetails.network': ['network', 'chain', 'blockchain'],
  'paymentDetails.sortCode': ['sortcode', 'sort'],
  'paymentDetails.accountNumber': ['accountnumber', 'account', 'accountno'],
};

/** The first unused column whose header matches a field's name or a known spelling of it. */
export function guessMapping(headers: readonly string[]): Mapping {
  const normalised = headers.map(normalise);
  const used = new Set<number>();
  const columns: Record<string, number | null> = {};
  for (const target of MAPPING_TARGETS) {
    const names = [normalise(target.split('.').at(-1) ?? target), ...ALIASES[target]];
    const index = normalised.findIndex((header, i) => !used.has(i) && names.includes(header));
    columns[target] = index === -1 ? null : index;
    if (index !== -1) used.add(index);
  }
  return { columns, fixedMethod: columns.method === null ? 'open_banking' : null };
}

export interface PreviewRow {
  line: number;
  method: string;
  form: BatchRowForm;
  /** Field path → problem; empty when the row can be sent. */
  problems: Record<string, string>;
  /** Will very likely be refused when sent (a daily limit), but is not wrong in itself. */
  warning: string | null;
  /** Earlier payouts it may repeat (same account, amount and currency: main's check); sent only once the person confirms it. */
  duplicates: PayoutMatch[];
  /** The earlier payout that already has its merchantReference (main's check); the problem is in `problems`. */
  reusedBy: PayoutMatch | null;
}

/** How a row stands: problem (left out), duplicate (left out until confirmed), confirmed (a duplicate sent anyway), warning or ok. */
export type RowState = 'problem' | 'duplicate' | 'confirmed' | 'warning' | 'ok';

export function rowState(row: PreviewRow, confirmed: ReadonlySet<number>): RowState {
  if (Object.keys(row.problems).length > 0) return 'problem';
  if (row.duplicates.length > 0) return confirmed.has(row.line) ? 'confirmed' : 'duplicate';
  return row.warning ? 'warning' : 'ok';
}

/** Whether a start sends the row. */
export const sendable = (row: PreviewRow, confirmed: ReadonlySet<number>) => {
  const state = rowState(row, confirmed);
  return state !== 'problem' && state !== 'duplicate';
};

/**
 * How the preview shows a row's amount: as typed when it was refused (amount or currency) —
 * "1e3", "-5" — never as a number it is not; otherwise exact, grouped, with its currency.
 */
export function previewAmount(row: PreviewRow): { text: string; typed: boolean } {
  const { amount, currency } = row.form;
  if (amount === undefined) return { text: '—', typed: false };
  if (row.problems.amount !== undefined || row.problems.currency !== undefined || currency === undefined) return { text: currency ? `${amount} ${currency}` : amount, typed: true };
  return { text: formatMoney(amount, currency), typed: false };
}

/** A payout of the ledger in a few words: "po-7 (25.00 EUR, 2026-12-01)". */
export const describePayout = (p: PayoutMatch) => `${p.merchantReference} (${p.amount} ${p.currency}, ${p.createdAt.slice(0, 10)})`;

/** Why a row left out is left out, in words (kept with the batch's record). */
export function leftOutReason(row: PreviewRow, describeField: (field: string) => string): string {
  const problems = Object.entries(row.problems).map(([field, problem]) => `${describeField(field)}: ${problem}`);
  if (problems.length > 0) return problems.join(' · ');
  return `possible duplicate of ${row.duplicates.map(describePayout).join(', ')}, not confirmed`;
}

/**
 * What main's check found, on the rows: a reference an earlier payout already has is a problem of
 * the row; the earlier payouts a row may repeat are kept for the person to confirm or leave out.
 */
export function withLedgerCheck(rows: readonly PreviewRow[], check: BatchCheckView['items']): PreviewRow[] {
  const byLine = new Map(check.map((c) => [c.line, c]));
  return rows.map((row) => {
    const found = byLine.get(row.line);
    if (!found) return row;
    const problems = { ...row.problems };
    if (found.referenceUsedBy) {
      problems.merchantReference ??= `is already the reference of payout ${describePayout(found.referenceUsedBy)}: give this row a reference of its own, or leave the cell empty and Paydesk makes one`;
    }
    return { ...row, problems, duplicates: found.duplicates, reusedBy: found.referenceUsedBy };
  });
}

export interface LimitContext {
  environment: 'local' | 'sandbox' | 'live';
  limits: LimitsList | null;
}

function rowForm(cells: readonly string[], mapping: Mapping): { method: string; form: BatchRowForm } {
  const cell = (target: string) => {
    const index = mapping.columns[target];
    return index === null || index === undefined ? '' : (cells[index] ?? '').trim();
  };
  const method = (mapping.columns.method !== null && mapping.columns.method !== undefined ? cell('method').toLowerCase() : (mapping.fixedMethod ?? '')) || '';
  const values: FormValues = {};
  for (const target of MAPPING_TARGETS) if (target !== 'method') values[target] = cell(target);
  // Any known method gives the common fields; an unknown one still shows what was read.
  return { method, form: toPayoutForm(isPayoutMethod(method) ? method : 'open_banking', values) };
}

/** Per-row checks that need the whole file or the limits: duplicate references, per-payout and daily limits. */
function fileChecks(rows: PreviewRow[], context: LimitContext): void {
  const seen = new Map<string, number>();
  for (const row of rows) {
    const reference = row.form.merchantReference;
    if (reference === undefined) continue;
    const first = seen.get(reference);
    if (first !== undefined) row.problems.merchantReference ??= `is already used on line ${first} of this file`;
    else seen.set(reference, row.line);
  }
  if (context.limits === null || context.environment === 'sandbox') return;
  const env = context.environment;
  const used = new Map<string, string>();
  for (const row of rows) {
    const amount = row.form.amount;
    const currency = row.form.currency;
    if (Object.keys(row.problems).length > 0 || amount === undefined || currency === undefined || parseDecimal(amount) === undefined) continue;
    for (const rule of context.limits.limits.filter((l) => l.currency === currency && (l.environment === 'any' || l.environment === env))) {
      if (rule.perPayoutMax !== null && compareAmounts(amount, rule.perPayoutMax) > 0) {
        row.problems.amount ??= `is over the per-payout limit of ${rule.perPayoutMax} ${currency}`;
      }
      if (rule.dailyMax !== null) {
        const key = `${currency}/${rule.environment}`;
        const today = rule.usage.find((u) => u.environment === env)?.usedToday ?? '0';
        const after = sumAmounts([used.get(key) ?? today, amount]);
        if (compareAmounts(after, rule.dailyMax) > 0) row.warning ??= `would pass the daily limit of ${rule.dailyMax} ${currency} (${after} with the rows above): it will be refused when sent`;
        else used.set(key, after);
      }
    }
  }
}

/** Checks every row with the shared validator, yielding to the UI between slices. */
export async function validateRows(csv: ParsedCsv, mapping: Mapping, context: LimitContext, onProgress: (done: number) => void, signal: AbortSignal): Promise<PreviewRow[]> {
  const out: PreviewRow[] = [];
  const now = new Date();
  const SLICE = 400;
  for (let start = 0; start < csv.rows.length; start += SLICE) {
    if (signal.aborted) throw new DOMException('validation replaced', 'AbortError');
    for (const { line, cells } of csv.rows.slice(start, start + SLICE)) {
      const { method, form } = rowForm(cells, mapping);
      let problems: Record<string, string>;
      if (method === 'credit_card') problems = { method: CARD_NOT_BATCHED };
      else if (!isPayoutMethod(method)) problems = { method: method === '' ? 'is required: map a column or choose one method for every row' : `"${method}" is not one of: ${PAYOUT_METHODS.filter((m) => m !== 'credit_card').join(', ')}` };
      else problems = payoutProblems(form, now);
      out.push({ line, method, form, problems, warning: null, duplicates: [], reusedBy: null });
    }
    onProgress(Math.min(csv.rows.length, start + SLICE));
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  fileChecks(out, context);
  return out;
}

/**
 * A file to start from: one column per mapping target, headed by the field's own name (which the
 * mapping guesses back), and one sample row per batchable method. Its merchantReference column is
 * there to be filled with the merchant's own reference for each payout (TEMPLATE_ADVICE): a row
 * left empty gets a fresh one from main, so the same file uploaded twice would make new payouts.
 */
export const TEMPLATE_ADVICE =
  'Fill the merchantReference column with your own reference for each payout (an invoice or payroll number): a reference is sent once, so a file uploaded twice cannot pay anyone twice. A row left empty gets a new reference.';

export function payoutTemplateCsv(): string {
  const headers = MAPPING_TARGETS.map((target) => target.split('.').at(-1) ?? target);
  const rows = PAYOUT_METHODS.filter((method) => method !== 'credit_card').map((method) => {
    const { customer, paymentDetails, merchantReference: _fresh, ...top } = samplePayoutForm(method);
    const values: Record<string, string | undefined> = { ...top, method };
    for (const [key, value] of Object.entries(customer ?? {})) values[`customer.${key}`] = value;
    for (const [key, value] of Object.entries(paymentDetails ?? {})) values[`paymentDetails.${key}`] = value;
    return MAPPING_TARGETS.map((target) => values[target] ?? '');
  });
  return `${Papa.unparse([headers, ...rows], { newline: '\n' })}\n`;
}

/** Exact sums per currency of the rows that will be sent. */
export function totalsOf(rows: readonly PreviewRow[]): CurrencyTotal[] {
  return totalsByCurrency(rows.map(({ form: { currency = '?', amount = '0' } }) => ({ currency, amount })));
}
