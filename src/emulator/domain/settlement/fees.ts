// The fee the provider keeps from each settled pay-in: a percentage of its amount plus a fixed
// part, per payment method. Exact decimals throughout (docs/emulator.md, "Fees").
import Decimal from 'decimal.js';
import { amountText, currencyScale, parseDecimal } from '../../../shared/money';
import { isPayinMethod, PAYIN_METHODS, type PayinMethod } from '../../../shared/spec/methods';

/** `percent` of the amount plus `fixed` (in the pay-in's currency), both decimal text. */
export interface FeeRate {
  percent: string;
  fixed: string;
}

export type FeeSchedule = Record<PayinMethod, FeeRate>;

/** Card-like methods cost most, bank transfers least: roughly what European acquirers charge. */
export const DEFAULT_FEES: Readonly<FeeSchedule> = {
  credit_card: { percent: '2.9', fixed: '0.25' },
  credit_card_ftd: { percent: '3.5', fixed: '0.25' },
  googlepay: { percent: '2.9', fixed: '0.25' },
  applepay: { percent: '2.9', fixed: '0.25' },
  open_banking: { percent: '0.5', fixed: '0.10' },
  blik: { percent: '1.5', fixed: '0.00' },
  interac: { percent: '1.0', fixed: '0.30' },
  crypto: { percent: '1.0', fixed: '0.00' },
};

/** Wide enough for any amount the API accepts (15 integer digits, 10 decimals) times any rate. */
const Exact = Decimal.clone({ precision: 80 });

/**
 * Fee and net of one line. The fee is rounded half up to the currency's minor units and never
 * exceeds the amount; when the amount itself has more decimals than the currency (a crypto
 * pay-in, "10.50" JPY), the part below the minor unit stays with the fee, so every net is an
 * amount a bank can pay. amount = fee + net, exactly.
 */
export function feeOf(amount: string, currency: string, rate: FeeRate): { fee: string; net: string } {
  const scale = currencyScale(currency);
  const gross = new Exact(amount);
  const rounded = gross.mul(rate.percent).div(100).plus(rate.fixed).toDecimalPlaces(scale, Decimal.ROUND_HALF_UP);
  const fee = Exact.min(rounded, gross);
  const net = gross.minus(fee).toDecimalPlaces(scale, Decimal.ROUND_DOWN);
  return { fee: amountText(gross.minus(net).toFixed(), currency), net: amountText(net.toFixed(), currency) };
}

const RATE_TEXT = /^\s*(\d+(?:\.\d+)?)\s*%\s*(?:\+\s*(\d+(?:\.\d+)?))?\s*$/;

/** A rate's parts checked: percent 0–100, fixed ≥ 0, each with at most 4 decimals; an error message otherwise. */
export function checkFeeRate(percent: unknown, fixed: unknown): FeeRate | string {
  const p = typeof percent === 'string' || typeof percent === 'number' ? parseDecimal(String(percent)) : undefined;
  const f = typeof fixed === 'string' || typeof fixed === 'number' ? parseDecimal(String(fixed)) : undefined;
  if (p === undefined || p.lt(0) || p.gt(100) || p.decimalPlaces() > 4) return 'percent must be a decimal from 0 to 100 with at most 4 decimals';
  if (f === undefined || f.lt(0) || f.decimalPlaces() > 4 || f.gte(1e9)) return 'fixed must be a decimal from 0 with at most 4 decimals';
  return { percent: p.toFixed(), fixed: f.toFixed() };
}

/** Fees given as an option, checked before anything starts: a RangeError names the first bad one. */
export function assertFeeOptions(fees: Partial<FeeSchedule>): void {
  for (const [method, rate] of Object.entries(fees)) {
    const checked = isPayinMethod(method) ? checkFeeRate(rate.percent, rate.fixed) : `${method} is not a pay-in method`;
    if (typeof checked === 'string') throw new RangeError(`settlement.fees.${method}: ${checked}`);
  }
}

/** `--fee credit_card=2.9%+0.25` (the fixed part may be left out: `blik=1.5%`). */
export function parseFeeOption(text: string): { method: PayinMethod; rate: FeeRate } | string {
  const [method = '', spec = ''] = text.split('=', 2);
  if (!isPayinMethod(method)) return `--fee needs a pay-in method (${PAYIN_METHODS.join(', ')}) before "="`;
  const m = RATE_TEXT.exec(spec);
  if (!m) return `--fee ${method}= needs PERCENT%+FIXED, e.g. ${method}=2.9%+0.25`;
  const rate = checkFeeRate(m[1], m[2] ?? '0');
  return typeof rate === 'string' ? `--fee ${method}: ${rate}` : { method, rate };
}
