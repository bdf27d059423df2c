// Exact money. Amounts travel as decimal strings or JSON source text and are checked with
// decimal.js; nothing here ever does arithmetic on binary floats, and nothing here rounds:
// decimal.js rounds every arithmetic result to `precision` significant digits (20 by default), so
// sums are done on integers of the smallest unit instead (BigInt), exact for any number of digits.
import currencyCodes from 'currency-codes';
import Decimal from 'decimal.js';
import { LosslessNumber, numberText } from './json';

/** Largest number of integer digits we accept; beyond it an amount is nonsense, not money. */
export const MAX_INTEGER_DIGITS = 15;

export type AmountProblem = 'not_a_number' | 'not_positive' | 'too_many_decimals' | 'too_large';

export type AmountCheck =
  | { ok: true; value: string }
  | { ok: false; problem: AmountProblem; message: string };

/** Parses decimal text (JSON number syntax or plain "12.50"); undefined when it is not one. */
export function parseDecimal(text: string): Decimal | undefined {
  if (!/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(text.trim())) return undefined;
  try {
    const d = new Decimal(text.trim());
    return d.isFinite() ? d : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks an amount given as a JSON number value (number or LosslessNumber) or decimal string
 * against a maximum scale. Trailing zeros carry no information, so "10.500" is 10.5 and passes
 * a scale of 2; the canonical value is returned as a plain decimal string.
 */
export function checkAmount(input: unknown, maxScale: number): AmountCheck {
  const text = typeof input === 'string' ? input : numberText(input);
  const d = text === undefined ? undefined : parseDecimal(text);
  if (d === undefined) return { ok: false, problem: 'not_a_number', message: 'must be a number' };
  if (d.lte(0)) return { ok: false, problem: 'not_positive', message: 'must be above 0' };
  if (d.decimalPlaces() > maxScale) {
    return {
      ok: false,
      problem: 'too_many_decimals',
      message: `must have at most ${maxScale} decimals`,
    };
  }
  if (d.trunc().toFixed(0).length > MAX_INTEGER_DIGITS) {
    return { ok: false, problem: 'too_large', message: `must have at most ${MAX_INTEGER_DIGITS} integer digits` };
  }
  return { ok: true, value: formatAmount(d.toFixed(), maxScale) };
}

/**
 * The gateway's canonical text of an amount at a method's precision: fiat (scale 2) always shows
 * two decimals ("10.50"); crypto shows the digits it has, without trailing zeros ("0.0001"). An
 * amount with more decimals than the scale is a RangeError, never rounded. What Paydesk keeps and
 * shows follows the currency instead: amountText.
 */
export function formatAmount(value: string, scale: number): string {
  const d = parseDecimal(value);
  if (d === undefined) throw new RangeError(`not a decimal amount: ${value}`);
  if (d.decimalPlaces() > scale) throw new RangeError(`amount ${value} has more than ${scale} decimals`);
  return scale === 2 ? d.toFixed(2) : d.toFixed();
}

/** Minor units when ISO 4217 gives none (a code the table does not know): two, as for most fiat. */
const DEFAULT_CURRENCY_SCALE = 2;

/** ISO 4217 minor units of a currency (EUR 2, JPY 0, KWD 3), from currency-codes; 2 for an unknown code. */
export function currencyScale(currency: string): number {
  let scale = scales.get(currency);
  if (scale === undefined) {
    const digits = currencyCodes.code(currency.trim().toUpperCase())?.digits;
    scale = typeof digits === 'number' && Number.isInteger(digits) && digits >= 0 ? digits : DEFAULT_CURRENCY_SCALE;
    if (scales.size < 1_000) scales.set(currency, scale);
  }
  return scale;
}

/** currencyScale's answers, by the code as given (a statement import asks once per line). */
const scales = new Map<string, number>();

/** Plain decimal text, the shape most amounts come in: done on the digits, without decimal.js. */
const PLAIN_DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * An amount as its currency writes it: every significant digit it has, and never fewer decimals
 * than the currency's minor units ("15.7" EUR → "15.70", "1000.00" JPY → "1000", "1.5" KWD →
 * "1.500", a crypto "0.0000000123" EUR stays). The same value always gives the same text; nothing
 * is rounded. A RangeError for text that is not a decimal.
 */
export function amountText(value: string, currency: string): string {
  const plain = PLAIN_DECIMAL.exec(value);
  if (plain) {
    const integer = plain[2]!.replace(/^0+(?=\d)/, '');
    const fraction = (plain[3] ?? '').replace(/0+$/, '').padEnd(currencyScale(currency), '0');
    const zero = /^0*$/.test(integer + fraction);
    return `${plain[1] && !zero ? '-' : ''}${integer}${fraction === '' ? '' : `.${fraction}`}`;
  }
  const d = parseDecimal(value);
  if (d === undefined) throw new RangeError(`not a decimal amount: ${value}`);
  return d.toFixed(Math.max(d.decimalPlaces(), currencyScale(currency)));
}

/** A decimal string as a JSON number that serialises exactly (see stringifyJson). */
export function toJsonAmount(value: string): LosslessNumber {
  const d = parseDecimal(value);
  if (d === undefined) throw new RangeError(`not a decimal amount: ${value}`);
  return new LosslessNumber(d.toFixed());
}

/** An exact decimal as a whole number of 10^-scale units: value = units / 10^scale. */
interface Units {
  units: bigint;
  scale: number;
}

function toUnits(value: string): Units {
  const d = parseDecimal(value);
  if (d === undefined) throw new RangeError(`not a decimal amount: ${value}`);
  const plain = d.toFixed(); // every digit, never exponent notation
  const negative = plain.startsWith('-');
  const [integer = '0', fraction = ''] = (negative ? plain.slice(1) : plain).split('.');
  const units = BigInt(integer + fraction);
  return { units: negative ? -units : units, scale: fraction.length };
}

function addUnits(a: Units, b: Units): Units {
  const scale = Math.max(a.scale, b.scale);
  return { units: a.units * 10n ** BigInt(scale - a.scale) + b.units * 10n ** BigInt(scale - b.scale), scale };
}

/** Plain decimal text without trailing zeros ("12.5", "0", "-0.0000000001"). */
function unitsText({ units, scale }: Units): string {
  const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
  const integer = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${units < 0n ? '-' : ''}${integer}${fraction === '' ? '' : `.${fraction}`}`;
}

/** Exact sum of decimal strings, however many and however long (reconciliation totals, limits). */
export function sumAmounts(values: readonly string[]): string {
  let total: Units = { units: 0n, scale: 0 };
  for (const value of values) total = addUnits(total, toUnits(value));
  return unitsText(total);
}

/** What a number of amounts in one currency add up to, exactly. */
export interface CurrencyTotal {
  currency: string;
  amount: string;
  count: number;
}

/** Exact totals per currency, in the order of their codes (a batch's totals: its preview, its review, its view). */
export function totalsByCurrency(items: Iterable<{ currency: string; amount: string }>): CurrencyTotal[] {
  const byCurrency = new Map<string, string[]>();
  for (const { currency, amount } of items) {
    const amounts = byCurrency.get(currency) ?? [];
    amounts.push(amount);
    byCurrency.set(currency, amounts);
  }
  return [...byCurrency.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([currency, amounts]) => ({ currency, amount: sumAmounts(amounts), count: amounts.length }));
}

/** -1, 0 or 1, exactly. */
export function compareAmounts(a: string, b: string): number {
  return new Decimal(a).comparedTo(new Decimal(b));
}

/**
 * Amount text as a person typed it (a form, a CSV cell), ready for the shared validator: the
 * exact JSON number it stands for, or why it is none, in the person's words. Only plain digits
 * with an optional dot and decimals go on; "-5", "1e3", "10,50" or "007" are named for what they
 * are (the validator then checks the scale and size of the rest). Pay-ins, payouts and batch rows
 * say it alike, in the renderer and in main.
 */
export function typedAmount(text: string): { ok: true; value: LosslessNumber } | { ok: false; message: string } {
  const t = text.trim();
  if (/^(0|[1-9]\d*)(\.\d+)?$/.test(t)) return { ok: true, value: new LosslessNumber(t) };
  return { ok: false, message: typedAmountProblem(t) };
}

function typedAmountProblem(t: string): string {
  if (/^[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+$/.test(t)) return `must be written out in digits, such as 1000 or 10.50, not as ${t}`;
  const signed = /^-\s*\d/.test(t);
  if (signed || /^(0+\.?0*|\.0+)$/.test(t)) return 'must be above 0';
  if (/^\+\s*\d/.test(t)) return 'must be written without a sign, such as 10.50';
  if (/^\d[\d,.\s]*$/.test(t) && t.includes(',')) return 'must use a dot before the decimals and no thousands separators, such as 1000.50';
  if (/^0\d+(\.\d+)?$/.test(t)) return 'must be written without leading zeros, such as 7 or 0.70';
  return 'must be a number such as 10.50 (digits, an optional dot and decimals)';
}
