// How statement records read in the contract: settlements with their difference to the bank,
// lines, bank lines, proposals with their reason in words, and the per-day comparison of what the
// ledger says succeeded with what was settled (exact decimals throughout).
import Decimal from 'decimal.js';
import type { BankLineView, DailyRow, SettlementLineView, SettlementView } from '../../../shared/contract/statements';
import { amountText, sumAmounts } from '../../../shared/money';
import type { BankLineRecord } from '../../ledger/repositories/bank-lines';
import type { SettlementLineRecord, SettlementRecord } from '../../ledger/repositories/settlement-lines';
import type { TotalsGroup } from '../../ledger/repositories/totals';
import { statusFacts } from '../../ledger/status';

export function settlementView(s: SettlementRecord): SettlementView {
  return {
    profileId: s.profileId,
    settlementId: s.settlementId,
    currency: s.currency,
    valueDate: s.valueDate,
    lines: s.lines,
    gross: s.gross,
    fees: s.fees,
    net: s.net,
    credited: s.credited,
    credits: s.credits,
    difference: s.credited === null ? null : amountText(sumAmounts([s.credited, `-${s.net}`]), s.currency),
  };
}

export function lineView(l: SettlementLineRecord): SettlementLineView {
  return {
    id: l.id,
    line: l.line,
    importId: l.importId,
    type: l.type,
    settlementId: l.settlementId,
    payinId: l.payinId,
    requestId: l.requestId,
    payoutId: l.payoutId,
    merchantReference: l.merchantReference,
    method: l.method,
    currency: l.currency,
    amount: l.amount,
    fee: l.fee,
    net: l.net,
    direction: l.direction,
    time: l.occurredAt,
    bookingDate: l.bookingDate,
    subject: l.subject,
    rowId: l.rowId,
    matchedBy: l.matchedBy,
    decidedBy: l.decidedBy,
    note: l.note,
  };
}

export function bankLineView(b: BankLineRecord): BankLineView {
  return {
    id: b.id,
    line: b.line,
    account: b.account,
    currency: b.currency,
    amount: b.amount,
    direction: b.direction,
    bookingDate: b.bookingDate,
    valueDate: b.valueDate,
    entryRef: b.entryRef,
    endToEndId: b.endToEndId,
    remittance: b.remittance,
    counterparty: b.counterparty,
    settlementId: b.settlementId,
    matchedBy: b.matchedBy,
    decidedBy: b.decidedBy,
    note: b.note,
  };
}

/** Why a bank credit is proposed for a settlement, in words. */
export function proposalReason(bank: BankLineRecord, settlement: SettlementRecord): string {
  const days = settlement.valueDate === null ? null : Math.round(Math.abs(Date.parse(bank.bookingDate) - Date.parse(settlement.valueDate)) / 86_400_000);
  const when = days === null ? '' : days === 0 ? ', booked on its value date' : `, booked ${days} day${days === 1 ? '' : 's'} from its value date`;
  return `The bank credit names no settlement, but it is exactly this settlement's net (${settlement.net} ${settlement.currency})${when}, and the settlement has no other credit.`;
}

/** fees / settled in percent, two decimals (half up); null when nothing was settled. */
function feeRate(fees: string, settled: string): string | null {
  const base = new Decimal(settled);
  return base.isZero() ? null : new Decimal(fees).times(100).dividedBy(base).toFixed(2, Decimal.ROUND_HALF_UP);
}

/**
 * Per day, currency and method: what the ledger says succeeded (pay-ins, final and successful, by
 * their day of creation) against what the reports settled (pay-in lines, by the day of the pay-in
 * they settle, or their own day when it is unknown), their fees and the effective fee rate.
 */
export function dailyRows(ledger: readonly TotalsGroup[], settled: readonly { day: string; currency: string; method: string; count: number; amount: string; fees: string }[]): DailyRow[] {
  const rows = new Map<string, { day: string; currency: string; method: string; ledgerCount: number; ledger: string[]; settledCount: number; settled: string[]; fees: string[] }>();
  const row = (day: string, currency: string, method: string) => {
    const key = JSON.stringify([day, currency, method]);
    const existing = rows.get(key) ?? { day, currency, method, ledgerCount: 0, ledger: [], settledCount: 0, settled: [], fees: [] };
    rows.set(key, existing);
    return existing;
  };
  for (const g of ledger) {
    if (g.statusCode === null) continue;
    const facts = statusFacts('payin', g.statusCode);
    if (facts.category !== 'success' || !facts.final) continue;
    const r = row(g.day, g.currency, g.method);
    r.ledgerCount += g.count;
    r.ledger.push(g.sum);
  }
  for (const s of settled) {
    const r = row(s.day, s.currency, s.method);
    r.settledCount += s.count;
    r.settled.push(s.amount);
    r.fees.push(s.fees);
  }
  return [...rows.values()]
    .sort((a, b) => (a.day === b.day ? (a.currency === b.currency ? a.method.localeCompare(b.method) : a.currency.localeCompare(b.currency)) : a.day < b.day ? 1 : -1))
    .map((r) => {
      const ledgerAmount = amountText(sumAmounts(r.ledger), r.currency);
      const settledAmount = amountText(sumAmounts(r.settled), r.currency);
      const fees = amountText(sumAmounts(r.fees), r.currency);
      return {
        day: r.day,
        currency: r.currency,
        method: r.method,
        ledgerCount: r.ledgerCount,
        ledgerAmount,
        settledCount: r.settledCount,
        settledAmount,
        fees,
        feeRate: feeRate(fees, settledAmount),
        difference: amountText(sumAmounts([ledgerAmount, `-${settledAmount}`]), r.currency),
      };
    });
}
