// Display helpers shared by the pay-in and payout screens. Amounts stay decimal strings: they are
// canonicalised by the shared money helpers and grouped as text, never through a float.
import dayjs from 'dayjs';
import { isJsonObject, parseJson, stringifyJson } from '../../../shared/json';
import { formatAmount } from '../../../shared/money';
import { amountScale } from '../../../shared/spec/methods';

/** "1,234.50 EUR" — the exact amount at the method's scale, thousands grouped, with its currency. */
export function formatMoney(amount: string, currency: string, method: string): string {
  let canonical: string;
  try {
    canonical = formatAmount(amount, amountScale(method));
  } catch {
    return `${amount} ${currency}`; // not a decimal: shown as stored rather than hidden
  }
  const [integer = '', fraction] = canonical.split('.');
  const sign = integer.startsWith('-') ? '-' : '';
  return `${sign}${groupDigits(integer.replace('-', ''))}${fraction === undefined ? '' : `.${fraction}`} ${currency}`;
}

/**
 * "1,000,000": thousands grouped like amounts. Not toLocaleString: the first Intl call of a page
 * loads the locale's data (tens of ms), and nothing else on the first screen needs it.
 */
export function groupDigits(digits: string | number): string {
  return String(digits).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Local date and time to the second; the ISO text (UTC) is the tooltip. */
export function formatTime(iso: string | null): string {
  return iso === null ? '—' : dayjs(iso).format('YYYY-MM-DD HH:mm:ss');
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
