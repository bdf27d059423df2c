// The settlement report as CSV (RFC 4180 through csv-stringify, CRLF, a header row): one line per
// settled pay-in and per payout wallet movement (payout, reversal of a failed payout, top-up), in
// the order they were booked. Formula-safe as Paydesk's own exports are: a cell a spreadsheet
// would run (leading = + - @, tab, carriage return) gets a leading '. Amounts are never negative
// (`direction` says which way the money moved), so no amount is ever touched by that rule.
import { stringify } from 'csv-stringify/sync';
import { amountText } from '../../shared/money';
import type { ReportLine } from '../store/settlements';
import type { MovementType, WalletMovement } from '../store/wallet';

export const SETTLEMENT_REPORT_COLUMNS = [
  'type',
  'settlement_id',
  'wallet_id',
  'payin_id',
  'request_id',
  'payout_id',
  'merchantReference',
  'topup_id',
  'method',
  'currency',
  'amount',
  'fee',
  'net',
  'direction',
  'time',
  'booking_date',
] as const;

type Row = Record<(typeof SETTLEMENT_REPORT_COLUMNS)[number], string>;

const EMPTY: Row = Object.fromEntries(SETTLEMENT_REPORT_COLUMNS.map((c) => [c, ''])) as Row;

/** Which way each movement moves the wallet's money. */
const MOVEMENT_DIRECTION: Record<MovementType, 'credit' | 'debit'> = { payout: 'debit', payout_reversal: 'credit', topup: 'credit' };

const payinRow = (l: ReportLine): Row => ({
  ...EMPTY,
  type: 'payin',
  settlement_id: l.settlement_id,
  payin_id: l.payin_id,
  request_id: l.request_id,
  method: l.method,
  currency: l.currency,
  amount: l.amount,
  fee: l.fee,
  net: l.net,
  direction: 'credit',
  time: l.time,
  booking_date: l.value_date,
});

const movementRow = (m: WalletMovement): Row => ({
  ...EMPTY,
  type: m.type,
  wallet_id: m.wallet_id,
  payout_id: m.payout_id ?? '',
  merchantReference: m.merchant_reference ?? '',
  topup_id: m.topup_id ?? '',
  method: m.method ?? '',
  currency: m.currency,
  amount: m.amount,
  fee: amountText('0', m.currency),
  net: m.amount,
  direction: MOVEMENT_DIRECTION[m.type],
  time: m.at,
  booking_date: m.at.slice(0, 10),
});

/** Settlement lines (booked when their settlement was made) and wallet movements, merged in booking order. */
export function settlementReportCsv(lines: readonly ReportLine[], movements: readonly WalletMovement[]): string {
  const rows: Row[] = [];
  let i = 0;
  let j = 0;
  while (i < lines.length || j < movements.length) {
    const line = lines[i];
    const movement = movements[j];
    if (line !== undefined && (movement === undefined || line.settled_at <= movement.at)) {
      rows.push(payinRow(line));
      i++;
    } else if (movement !== undefined) {
      rows.push(movementRow(movement));
      j++;
    }
  }
  return stringify(
    rows.map((r) => SETTLEMENT_REPORT_COLUMNS.map((c) => r[c])),
    { header: true, columns: [...SETTLEMENT_REPORT_COLUMNS], escape_formulas: true, record_delimiter: '\r\n', bom: false },
  );
}
