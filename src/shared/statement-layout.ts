// How a statement file in CSV reads: which column holds which field, the decimal separator and the
// date format. One table per kind of file (a settlement report, a bank statement) says its fields,
// which are required and the header spellings a column is proposed for; main applies a layout to
// every row of an import, the mapping step proposes one from the headers and shows it. The rules
// for a cell (an amount with a decimal comma and thousands separators, a date in a common format)
// are here once, for both.
import dayjs from 'dayjs';
import customParseFormat from 'dayjs/plugin/customParseFormat.js';
import utc from 'dayjs/plugin/utc.js';

dayjs.extend(customParseFormat);
dayjs.extend(utc);

export const STATEMENT_KINDS = ['settlement', 'bank'] as const;
export type StatementKind = (typeof STATEMENT_KINDS)[number];

export const STATEMENT_FORMATS = ['csv', 'camt053', 'mt940'] as const;
export type StatementFormat = (typeof STATEMENT_FORMATS)[number];

export const FORMAT_LABELS: Record<StatementFormat, string> = { csv: 'CSV', camt053: 'camt.053 (ISO 20022 XML)', mt940: 'MT940 (SWIFT)' };
export const KIND_LABELS: Record<StatementKind, string> = { settlement: 'Settlement report', bank: 'Bank statement' };

interface FieldSpec {
  label: string;
  required: boolean;
  /** Header spellings proposed for it, compared without case, spaces, dashes or underscores. */
  headers: readonly string[];
}

/** A settlement report's fields (the emulator's report names them as its columns: docs/emulator.md). */
export const SETTLEMENT_FIELDS = {
  type: { label: 'Line type', required: false, headers: ['type', 'linetype', 'kind', 'recordtype', 'transactiontype'] },
  settlement_id: { label: 'Settlement id', required: false, headers: ['settlementid', 'settlement', 'settlementreference', 'batchid', 'payoutbatchid', 'payoutbatch', 'settlementbatch', 'batch', 'batchreference'] },
  wallet_id: { label: 'Wallet id', required: false, headers: ['walletid', 'wallet'] },
  payin_id: { label: 'payin_id', required: false, headers: ['payinid', 'paymentid', 'transactionid', 'txid', 'pspreference'] },
  request_id: { label: 'request_id', required: false, headers: ['requestid', 'orderid', 'merchantorderid', 'orderreference'] },
  payout_id: { label: 'payout_id', required: false, headers: ['payoutid'] },
  merchantReference: { label: 'merchantReference', required: false, headers: ['merchantreference', 'merchantref'] },
  topup_id: { label: 'Top-up id', required: false, headers: ['topupid'] },
  method: { label: 'Method', required: false, headers: ['method', 'paymentmethod', 'methodname'] },
  currency: { label: 'Currency', required: true, headers: ['currency', 'ccy', 'cur', 'currencycode'] },
  amount: { label: 'Amount', required: true, headers: ['amount', 'grossamount', 'gross', 'value'] },
  fee: { label: 'Fee', required: false, headers: ['fee', 'fees', 'commission', 'feeamount'] },
  net: { label: 'Net', required: false, headers: ['net', 'netamount', 'payable'] },
  direction: { label: 'Direction', required: false, headers: ['direction', 'creditdebit', 'dc', 'sign'] },
  time: { label: 'Time', required: false, headers: ['time', 'timestamp', 'datetime', 'createdat', 'succeededat', 'transactiondate', 'paidat', 'capturedat', 'completedat'] },
  booking_date: { label: 'Booking date', required: false, headers: ['bookingdate', 'valuedate', 'settlementdate', 'date'] },
} as const satisfies Record<string, FieldSpec>;
export type SettlementField = keyof typeof SETTLEMENT_FIELDS;

/** A bank statement's fields, for a bank's CSV export. */
export const BANK_FIELDS = {
  booking_date: { label: 'Booking date', required: true, headers: ['bookingdate', 'date', 'buchungstag', 'transactiondate', 'posted', 'entrydate'] },
  value_date: { label: 'Value date', required: false, headers: ['valuedate', 'valuta', 'valutadatum'] },
  amount: { label: 'Amount', required: true, headers: ['amount', 'betrag', 'value', 'credit'] },
  currency: { label: 'Currency', required: false, headers: ['currency', 'ccy', 'waehrung', 'wahrung', 'currencycode'] },
  direction: { label: 'Credit / debit', required: false, headers: ['creditdebit', 'cdtdbtind', 'dc', 'direction', 'sollhaben'] },
  end_to_end_id: { label: 'End-to-end reference', required: false, headers: ['endtoendid', 'endtoendreference', 'reference', 'eref', 'customerreference'] },
  remittance: { label: 'Remittance information', required: false, headers: ['remittance', 'remittanceinformation', 'description', 'details', 'verwendungszweck', 'purpose', 'narrative'] },
  counterparty: { label: 'Counterparty', required: false, headers: ['counterparty', 'debtor', 'payer', 'name', 'auftraggeber', 'beguenstigterzahlungspflichtiger'] },
  entry_ref: { label: 'Bank reference', required: false, headers: ['entryref', 'bankreference', 'acctsvcrref', 'transactionid', 'id'] },
  account: { label: 'Account (IBAN)', required: false, headers: ['account', 'iban', 'accountnumber', 'auftragskonto'] },
} as const satisfies Record<string, FieldSpec>;
export type BankField = keyof typeof BANK_FIELDS;

export const FIELDS_OF = { settlement: SETTLEMENT_FIELDS, bank: BANK_FIELDS } as const;
export type FieldOf<K extends StatementKind> = keyof (typeof FIELDS_OF)[K];

export const DELIMITERS = [',', ';', '\t', '|'] as const;
export type Delimiter = (typeof DELIMITERS)[number];
export const DELIMITER_LABELS: Record<Delimiter, string> = { ',': 'Comma', ';': 'Semicolon', '\t': 'Tab', '|': 'Vertical bar' };

export const DECIMAL_SEPARATORS = ['.', ','] as const;
export type DecimalSeparator = (typeof DECIMAL_SEPARATORS)[number];

/** The date formats a column may be in (day.js tokens; D and M take one or two digits). */
export const DATE_FORMATS = ['YYYY-MM-DD', 'D.M.YYYY', 'D/M/YYYY', 'M/D/YYYY', 'D-M-YYYY', 'YYYYMMDD', 'D.M.YY'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];
export const DATE_FORMAT_LABELS: Record<DateFormat, string> = {
  'YYYY-MM-DD': '2024-05-31 (ISO)',
  'D.M.YYYY': '31.05.2024',
  'D/M/YYYY': '31/05/2024',
  'M/D/YYYY': '05/31/2024',
  'D-M-YYYY': '31-05-2024',
  YYYYMMDD: '20240531',
  'D.M.YY': '31.05.24',
};

/** A CSV layout: the columns by header name (a reordered file still maps), and how its cells read. */
export interface CsvLayout<F extends string = string> {
  columns: Partial<Record<F, string>>;
  delimiter: Delimiter;
  encoding: string;
  decimal: DecimalSeparator;
  dateFormat: DateFormat;
  /** A bank CSV without a currency column: the account's currency. */
  currency?: string | undefined;
}

const headerKey = (header: string): string => header.normalize('NFKD').toLowerCase().replace(/[^a-z0-9]/g, '');

/** Each field's column, proposed from the headers: the first header spelled as one of the field's (each header taken once). */
export function proposeColumns<K extends StatementKind>(kind: K, headers: readonly string[]): Partial<Record<FieldOf<K>, string>> {
  const fields = FIELDS_OF[kind] as Record<string, FieldSpec>;
  const taken = new Set<number>();
  const keys = headers.map(headerKey);
  const proposed: Record<string, string> = {};
  // Exact spellings first, in the order each field lists them, so "date" goes to the booking date
  // only when no column is called "booking_date".
  const ranks = Math.max(...Object.values(fields).map((spec) => spec.headers.length));
  for (let rank = 0; rank < ranks; rank++) {
    for (const [field, spec] of Object.entries(fields)) {
      if (proposed[field] !== undefined) continue;
      const spelling = spec.headers[rank];
      if (spelling === undefined) continue;
      const index = keys.findIndex((key, i) => key === spelling && !taken.has(i));
      if (index >= 0) {
        taken.add(index);
        proposed[field] = headers[index] as string;
      }
    }
  }
  return proposed as Partial<Record<FieldOf<K>, string>>;
}

/** The required fields a layout leaves without a column (a bank layout with a fixed currency needs no currency column). */
export function missingFields(kind: StatementKind, layout: Pick<CsvLayout, 'columns' | 'currency'>): string[] {
  const fields = FIELDS_OF[kind] as Record<string, FieldSpec>;
  const columns = layout.columns as Record<string, string | undefined>;
  const missing = Object.entries(fields).filter(([field, spec]) => spec.required && !columns[field]).map(([field]) => field);
  if (kind === 'bank' && !columns.currency && !layout.currency) missing.push('currency');
  if (kind === 'settlement' && !['payin_id', 'request_id', 'payout_id', 'merchantReference', 'topup_id'].some((f) => columns[f])) missing.push('payin_id');
  return missing;
}

export type CellResult<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Spaces a number may be grouped by: space, no-break space, narrow no-break space, apostrophe (Swiss). */
const GROUP_SPACES = /[\s\u00a0\u202f'’]/g;

/** Per decimal separator: a plain number, and one grouped in threes by the other separator. */
const NUMBER_SHAPES: Record<DecimalSeparator, { plain: RegExp; grouped: RegExp; group: string }> = {
  '.': { plain: /^(\d+)(?:\.(\d+))?$/, grouped: /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/, group: ',' },
  ',': { plain: /^(\d+)(?:,(\d+))?$/, grouped: /^\d{1,3}(?:\.\d{3})+(?:,\d+)?$/, group: '.' },
};

/** Digits as plain decimal text: no leading zeros but one, no trailing zeros in the fraction ("007.50" → "7.5"). */
function plainDecimal(integer: string, fraction: string): string {
  const int = integer.replace(/^0+(?=\d)/, '');
  const frac = fraction.replace(/0+$/, '');
  return frac === '' ? int : `${int}.${frac}`;
}

/**
 * An amount as a report or bank writes it: a sign (leading or trailing minus, or parentheses), the
 * decimal separator given, and thousands grouped by the other one, spaces or apostrophes ("1.234,56",
 * "1,234.56", "1 234,56", "1'234.56"). Grouping must be in threes, so "1,23" read with a decimal
 * point is refused rather than taken for 123. The plain decimal text, exactly (string work on the
 * digits: never a float, and no rounding).
 */
export function parseAmountCell(text: string, decimal: DecimalSeparator): CellResult<string> {
  const shape = NUMBER_SHAPES[decimal];
  let s = text.trim();
  // The common case first: plain digits, nothing to take off.
  let match = shape.plain.exec(s);
  let negative = false;
  if (!match) {
    if (s === '') return { ok: false, reason: 'is empty' };
    if (s.startsWith('(') && s.endsWith(')')) {
      negative = true;
      s = s.slice(1, -1).trim();
    }
    if (s.startsWith('-') || s.startsWith('+')) {
      negative = negative !== s.startsWith('-');
      s = s.slice(1).trim();
    } else if (s.endsWith('-')) {
      negative = !negative;
      s = s.slice(0, -1).trim();
    }
    const spaced = s;
    const compact = spaced.replace(GROUP_SPACES, (space, offset: number) => (/\d/.test(spaced[offset - 1] ?? '') && /\d/.test(spaced[offset + 1] ?? '') ? shape.group : space));
    const ungrouped = shape.grouped.test(compact) ? compact.split(shape.group).join('') : compact;
    match = shape.plain.exec(ungrouped);
    if (!match) return { ok: false, reason: `"${clip(text)}" is not an amount with "${decimal}" as its decimal separator` };
  }
  const value = plainDecimal(match[1]!, match[2] ?? '');
  if (value.split('.')[0]!.length > 15) return { ok: false, reason: `"${clip(text)}" has more than 15 integer digits` };
  return { ok: true, value: negative && /[1-9]/.test(value) ? `-${value}` : value };
}

/** A format's spellings for day.js: D / DD and M / MM each. */
function spellings(format: DateFormat): string[] {
  if (!/\bD\b/.test(format)) return [format];
  return ['D', 'DD'].flatMap((day) => ['M', 'MM'].map((month) => format.replace(/\bD\b/, day).replace(/\bM\b/, month)));
}

/** A date in the layout's format (or an ISO date-time, whatever the format), as YYYY-MM-DD. */
export function parseDateCell(text: string, format: DateFormat): CellResult<string> {
  const s = text.trim();
  if (s === '') return { ok: false, reason: 'is empty' };
  if (format === 'YYYY-MM-DD' && ISO_DATE.test(s)) {
    return isoDay(s) ? { ok: true, value: s } : { ok: false, reason: `"${clip(text)}" is not a date written ${DATE_FORMAT_LABELS[format]}` };
  }
  const iso = /^(\d{4}-\d{2}-\d{2})T[\d:.]+(Z|[+-]\d{2}:?\d{2})?$/.exec(s);
  if (iso) {
    const at = Date.parse(iso[2] === undefined ? `${s}Z` : s);
    if (!Number.isNaN(at)) return { ok: true, value: new Date(at).toISOString().slice(0, 10) };
  }
  // day.js's strict parse wants the text as its format would write it back: D and M with and without a leading zero.
  const parsed = spellings(format)
    .map((spelling) => dayjs.utc(s, spelling, true))
    .find((d) => d.isValid());
  if (!parsed) return { ok: false, reason: `"${clip(text)}" is not a date written ${DATE_FORMAT_LABELS[format]}` };
  return { ok: true, value: parsed.format('YYYY-MM-DD') };
}

/** The ISO date, when it is a day of the calendar (2024-02-30 is not). */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
function isoDay(s: string): boolean {
  return calendarDay(Number(s.slice(0, 4)), Number(s.slice(5, 7)), Number(s.slice(8, 10)));
}

/** Whether the year (0–9999), month and day name a day of the Gregorian calendar: arithmetic, as a million cells need it. */
function calendarDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31);
}

/** A UTC time as ISO writes it with milliseconds: kept as it is once checked. */
const ISO_UTC_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{3}Z$/;

/** A time: an ISO 8601 date-time (UTC when it names no offset), or a date in the layout's format (its midnight, UTC). */
export function parseTimeCell(text: string, format: DateFormat): CellResult<string> {
  const s = text.trim();
  // As ISO writes it, a day of the calendar and a time of day: kept as it is (anything else is read below).
  const utc = ISO_UTC_TIME.exec(s);
  if (utc && calendarDay(Number(utc[1]), Number(utc[2]), Number(utc[3])) && Number(utc[4]) < 24 && Number(utc[5]) < 60 && Number(utc[6]) < 60) return { ok: true, value: s };
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(s)) {
    const normal = s.replace(' ', 'T');
    const at = Date.parse(/(Z|[+-]\d{2}:?\d{2})$/.test(normal) ? normal : `${normal}Z`);
    if (!Number.isNaN(at)) return { ok: true, value: new Date(at).toISOString() };
  }
  const date = parseDateCell(s, format);
  return date.ok ? { ok: true, value: `${date.value}T00:00:00.000Z` } : date;
}

/** The date format that reads every sample, preferring the order of DATE_FORMATS (ISO first); ISO when none does. */
export function guessDateFormat(samples: readonly string[]): DateFormat {
  const values = samples.map((s) => s.trim()).filter((s) => s !== '');
  return DATE_FORMATS.find((format) => values.length > 0 && values.every((v) => parseDateCell(v, format).ok)) ?? 'YYYY-MM-DD';
}

/**
 * The other formats that read every sample too but to other days (05/04/2024: 5 April as D/M/YYYY,
 * 4 May as M/D/YYYY): the file alone cannot say which it meant, so the person is asked to check.
 */
export function otherDateReadings(samples: readonly string[], format: DateFormat): DateFormat[] {
  const values = samples.map((s) => s.trim()).filter((s) => s !== '');
  const read = (f: DateFormat) => values.map((v) => parseDateCell(v, f));
  const chosen = read(format);
  if (values.length === 0 || !chosen.every((r) => r.ok)) return [];
  return DATE_FORMATS.filter((other) => {
    if (other === format) return false;
    const readings = read(other);
    return readings.every((r) => r.ok) && readings.some((r, i) => r.ok && chosen[i]!.ok && r.value !== chosen[i]!.value);
  });
}

/** The decimal separator that reads every sample amount (a comma only when a point cannot). */
export function guessDecimal(samples: readonly string[]): DecimalSeparator {
  const values = samples.map((s) => s.trim()).filter((s) => s !== '');
  if (values.every((v) => parseAmountCell(v, '.').ok)) return '.';
  if (values.every((v) => parseAmountCell(v, ',').ok)) return ',';
  return '.';
}

/** A cell quoted in a message: the person sees what was there, never a screenful. */
export function clip(text: string, max = 40): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
