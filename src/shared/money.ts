// Exact money. Amounts travel as decimal strings or JSON source text and are checked with
// decimal.js; nothing here ever does arithmetic on binary floats.
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
  if (d.lte(0)) return { ok: false, problem: 'not_positive', message: 'must be greater than 0' };
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
 * Canonical text of an amount: fiat (scale 2) always shows two decimals ("10.50"); crypto shows
 * the digits it has, without trailing zeros ("0.0001").
 */
export function formatAmount(value: string, scale: number): string {
  const d = new Decimal(value);
  return scale === 2 ? d.toFixed(2) : d.toFixed();
}

/** A decimal string as a JSON number that serialises exactly (see stringifyJson). */
export function toJsonAmount(value: string): LosslessNumber {
  const d = parseDecimal(value);
  if (d === undefined) throw new RangeError(`not a decimal amount: ${value}`);
  return new LosslessNumber(d.toFixed());
}

/** Exact sum of decimal strings (reconciliation totals). */
export function sumAmounts(values: readonly string[]): string {
  return values.reduce((acc, v) => acc.plus(new Decimal(v)), new Decimal(0)).toFixed();
}

/** -1, 0 or 1, exactly. */
export function compareAmounts(a: string, b: string): number {
  return new Decimal(a).comparedTo(new Decimal(b));
}
