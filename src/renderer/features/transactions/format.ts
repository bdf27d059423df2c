// Display helpers shared by the pay-in and payout screens. Amounts stay decimal strings: they are
// written as their currency writes them by the shared money helpers and grouped as text, never
// through a float.
import { isJsonObject, parseJson, stringifyJson } from '../../../shared/json';
import { amountText } from '../../../shared/money';

/**
 * "1,234.50": the exact amount with every digit it has and at least its currency's minor units
 * (15.7 EUR shows 15.70, 1000 JPY shows 1,000, a crypto 0.0000000123 EUR keeps every digit),
 * thousands grouped. Text that is not a decimal is shown as stored rather than hidden.
 */
export function formatAmount(amount: string, currency: string): string {
  let exact: string;
  try {
    exact = amountText(amount, currency);
  } catch {
    return amount;
  }
  const [integer = '', fraction] = exact.split('.');
  const sign = integer.startsWith('-') ? '-' : '';
  return `${sign}${groupDigits(integer.replace('-', ''))}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** "1,234.50 EUR": formatAmount with its currency. */
export function formatMoney(amount: string, currency: string): string {
  return `${formatAmount(amount, currency)} ${currency}`;
}

/**
 * "1,000,000": thousands grouped like amounts. Not toLocaleString: the first Intl call of a page
 * loads the locale's data (tens of ms), and nothing else on the first screen needs it.
 */
export function groupDigits(digits: string | number): string {
  return String(digits).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** The locale's short date and its time to the second: it fits a list's column. */
export const LOCAL_TIME_FORMAT: Intl.DateTimeFormatOptions = { dateStyle: 'short', timeStyle: 'medium' };
let localTime: Intl.DateTimeFormat | undefined;

/**
 * Date and time to the second in the user's locale and time zone (the system's, as Intl reads it):
 * "11/25/25, 4:15:13 PM" in en-US, "25.11.25, 16:15:13" in de-DE. Created on first use: the
 * first Intl call of a page loads the locale's data. Text that is not a date is shown as stored.
 */
export function formatTime(iso: string | null): string {
  if (iso === null) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  localTime ??= new Intl.DateTimeFormat(undefined, LOCAL_TIME_FORMAT);
  return localTime.format(date);
}

/** "2025-11-25 16:15:13 UTC": the same moment in UTC, for the hover of every date. */
export function formatUtc(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/**
 * Raw JSON pretty-printed for reading, numbers exactly as received (JSON.parse would turn an
 * amount of 10.50 into 10.5); text that is not JSON is returned as is.
 */
export function prettyJson(text: string): string {
  try {
    return stringifyJson(parseJson(text), 2);
  } catch {
    return text;
  }
}

/** The JSON object a raw text holds, or null (not JSON, or not an object). */
export function jsonObject(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value = parseJson(text);
    return isJsonObject(value) ? value : null;
  } catch {
    return null;
  }
}
