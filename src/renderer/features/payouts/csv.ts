// A payout CSV in the renderer: parsed with Papa Parse (quotes, embedded commas and newlines, BOM,
// delimiters guessed), its columns mapped onto the payout's fields (guessed from the headers, then
// the user's to change), and each row turned into the manual form's shape and checked with the
// shared validator — in slices, so a 10,000-row file never freezes the window.
import Papa from 'papaparse';
import { BATCH_MAX_ROWS, type BatchRowForm, type LimitsList } from '../../../shared/contract';
import { compareAmounts, parseDecimal, sumAmounts } from '../../../shared/money';
import { allPayoutFormPaths, type PayoutInputPath } from '../../../shared/spec/form-fields';
import { samplePayoutForm } from '../../../shared/spec/samples';
import { isPayoutMethod, PAYOUT_METHODS, type PayoutMethod } from '../../../shared/spec/methods';
import { payoutProblems, toPayoutForm, type FormValues } from './validate';

export interface ParsedCsv {
  fileName: string;
  headers: string[];
  /** Data rows (the header row excluded); `line` is the file's line number, for messages. */
  rows: { line: number; cells: string[] }[];
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

export function parseCsvFile(file: File): Promise<ParsedCsv> {
  return new Promise((resolve, reject) => {
    Papa.parse<string[]>(file, {
      ...PARSE_CONFIG,
      complete: (result) => {
        try {
          resolve(readParseResult(file.name, result));
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      },
      error: (error) => reject(new Error(`The file could not be read: ${error.message}`)),
    });
  });
}

/** The same as parseCsvFile for text already read (a file's bytes decoded as UTF-8, which drops a BOM). Throws an Error saying what is wrong with the file. */
export function parseCsvText(fileName: string, text: string): ParsedCsv {
  return readParseResult(fileName, Papa.parse<string[]>(text.replace(/^\ufeff/, ''), PARSE_CONFIG));
}

/** Papa Parse's result as the batch screen uses it, or an Error naming what makes the file unusable. */
function readParseResult(fileName: string, result: Papa.ParseResult<string[]>): ParsedCsv {
  const [header, ...data] = result.data;
  if (!header || header.every((cell) => cell.trim() === '')) throw new Error('The file is empty: the first row must name the columns.');
  if (data.length === 0) throw new Error('The file has a header row but no payouts.');
  if (data.length > BATCH_MAX_ROWS) throw new Error(`The file has ${data.length.toLocaleString()} rows; a batch holds at most ${BATCH_MAX_ROWS.toLocaleString()}. Split it.`);
  const fatal = result.errors.find((e) => e.type === 'Quotes');
  if (fatal) throw new Error(`Row ${(fatal.row ?? 0) + 1}: ${fatal.message}. Check the quotes in the file.`);
  // Line numbers as a spreadsheet shows them (header = 1), skipping blank lines is close enough for messages.
  return { fileName, headers: header.map((h) => h.trim()), rows: data.map((cells, i) => ({ line: i + 2, cells })) };
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
      out.push({ line, method, form, problems, warning: null });
    }
    onProgress(Math.min(csv.rows.length, start + SLICE));
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  fileChecks(out, context);
  return out;
}

/**
 * A file to start from: one column per mapping target, headed by the field's own name (which the
 * mapping guesses back), and one sample row per batchable method, merchantReference left empty
 * (main gives each row a fresh one).
 */
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
export function totalsOf(rows: readonly PreviewRow[]): { currency: string; amount: string; count: number }[] {
  const byCurrency = new Map<string, string[]>();
  for (const row of rows) {
    const { currency = '?', amount = '0' } = row.form;
    const amounts = byCurrency.get(currency) ?? [];
    amounts.push(amount);
    byCurrency.set(currency, amounts);
  }
  return [...byCurrency.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([currency, amounts]) => ({ currency, amount: sumAmounts(amounts), count: amounts.length }));
}
