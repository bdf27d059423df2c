// Sums of payouts of several methods in one currency can carry crypto's 10 decimals: shown with
// every digit they have (at least two), never rounded to the fiat scale.
import Decimal from 'decimal.js';

export function formatTotal(amount: string, currency: string): string {
  let d: Decimal;
  try {
    d = new Decimal(amount);
  } catch {
    return `${amount} ${currency}`;
  }
  const [integer = '', fraction] = d.toFixed(Math.max(2, d.decimalPlaces())).split('.');
  const sign = integer.startsWith('-') ? '-' : '';
  return `${sign}${integer.replace('-', '').replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction === undefined ? '' : `.${fraction}`} ${currency}`;
}
