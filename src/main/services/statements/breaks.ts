// The break queues: what the ledger, the reports and the bank do not agree on, each row in words
// and with what it opens (a pay-in, a payout, a settlement), counted, paged and exported as CSV.
import { TRANSACTION_KINDS } from '../../transaction-kinds';
import { breakQueueSchema, type BreakQueue, type BreakRow, type CsvFile, type StatementScope } from '../../../shared/contract';
import type { Repositories } from '../../ledger/repositories/index';
import type { BreakFilter, BreakRecord } from '../../ledger/repositories/statement-breaks';
import { cursorNumber, encodeCursor, pageSize } from '../../ledger/repositories/page';
import { isoTime, type Clock } from '../../ledger/support';
import { toCsv, type CsvColumn } from '../reconciliation/csv';
import { MAX_CSV_ROWS } from '../reconciliation/reconciliation-service';

/** Every queue, in the contract's order (counted in that order). */
export const BREAK_QUEUES: readonly BreakQueue[] = breakQueueSchema.options;

/** "Succeeded but not settled" after this many days unless the screen says otherwise. */
export const DEFAULT_UNSETTLED_DAYS = 3;

const money = (amount: string | null, currency: string | null) => (amount === null ? 'nothing' : `${amount} ${currency ?? ''}`.trim());
const what = (subject: 'payin' | 'payout' | null) => TRANSACTION_KINDS[subject ?? 'payin'].noun;

/** What each queue's row says, from its record: one table, every queue (adding a queue fails the typecheck here). */
const DETAIL: Record<BreakQueue, (r: BreakRecord, days: number) => string> = {
  unsettled: (r, days) => `The ledger says this ${what(r.subject)} succeeded (${r.date ?? 'date unknown'}); no imported report line settles it after ${days} day${days === 1 ? '' : 's'}.`,
  not_successful: (r) =>
    r.subject === 'payout'
      ? `Paid from the wallet${r.settlementId ? ` in ${r.settlementId}` : ''}, but the payout failed in the ledger (${r.status ?? 'no status'}) and no reversal line credits it back.`
      : `Settled${r.settlementId ? ` in ${r.settlementId}` : ''}, but the ledger's status is ${r.status ?? 'none yet'}, not a success.`,
  amount_differs: (r) => `The report says ${money(r.amount, r.currency)}; the ledger says ${money(r.otherAmount, r.otherCurrency)}.`,
  unknown_to_ledger: (r) => `${money(r.amount, r.currency)}${r.settlementId ? ` in ${r.settlementId}` : ''}: no pay-in or payout with its ids is in the ledger.`,
  settled_twice: (r) => `On ${r.times ?? 2} report lines${r.settlementId ? ` (first in ${r.settlementId})` : ''}: settled more than once.`,
  no_bank_credit: (r) => `Net ${money(r.amount, r.currency)}, value date ${r.date ?? 'unknown'}: no bank credit is matched to it.`,
  credit_without_settlement: (r) => `${money(r.amount, r.currency)} booked ${r.date ?? ''}${r.reference ? `, reference ${r.reference}` : ''}: it names no imported settlement.`,
  credit_differs: (r) => `Net ${money(r.amount, r.currency)}; the bank credited ${money(r.otherAmount, r.otherCurrency)}${(r.times ?? 0) > 1 ? ` in ${r.times} credits` : ''}.`,
};

const COLUMNS: CsvColumn<BreakRow>[] = [
  { header: 'queue', value: (r) => r.queue },
  { header: 'profile_id', value: (r) => r.profileId, exact: true },
  { header: 'subject', value: (r) => r.subject },
  { header: 'row_id', value: (r) => r.rowId, exact: true },
  { header: 'settlement_id', value: (r) => r.settlementId, exact: true },
  { header: 'line_id', value: (r) => r.lineId, exact: true },
  { header: 'bank_line_id', value: (r) => r.bankLineId, exact: true },
  { header: 'reference', value: (r) => r.reference, exact: true },
  { header: 'gateway_id', value: (r) => r.gatewayId, exact: true },
  { header: 'method', value: (r) => r.method },
  { header: 'amount', value: (r) => r.amount, exact: true },
  { header: 'currency', value: (r) => r.currency, exact: true },
  { header: 'other_amount', value: (r) => r.otherAmount, exact: true },
  { header: 'other_currency', value: (r) => r.otherCurrency, exact: true },
  { header: 'status', value: (r) => r.status, exact: true },
  { header: 'times', value: (r) => r.times, exact: true },
  { header: 'date', value: (r) => r.date, exact: true },
  { header: 'detail', value: (r) => r.detail },
];

export class StatementBreaks {
  constructor(private readonly d: { repos: Pick<Repositories, 'statementBreaks'>; now: Clock }) {}

  private filter(scope: StatementScope): { filter: BreakFilter; days: number } {
    const days = scope.unsettledAfterDays ?? DEFAULT_UNSETTLED_DAYS;
    return { filter: { profileId: scope.profileId, from: scope.from, to: scope.to, succeededBefore: isoTime(new Date(this.d.now().getTime() - days * 86_400_000)) }, days };
  }

  private row(queue: BreakQueue, r: BreakRecord, days: number): BreakRow {
    const { pos, ...rest } = r;
    return { key: `${queue}:${pos}`, queue, ...rest, detail: DETAIL[queue](r, days) };
  }

  async counts(scope: StatementScope): Promise<{ queue: BreakQueue; count: number }[]> {
    const { filter } = this.filter(scope);
    const counts: { queue: BreakQueue; count: number }[] = [];
    for (const queue of BREAK_QUEUES) counts.push({ queue, count: await this.d.repos.statementBreaks.count(queue, filter) });
    return counts;
  }

  async page(queue: BreakQueue, scope: StatementScope, cursor: string | null | undefined, limit: number | undefined) {
    const { filter, days } = this.filter(scope);
    const size = pageSize(limit);
    const rows = await this.d.repos.statementBreaks.page(queue, filter, cursorNumber(cursor), size + 1);
    const items = rows.slice(0, size);
    return {
      queue,
      items: items.map((r) => this.row(queue, r, days)),
      nextCursor: rows.length > size && items.length > 0 ? encodeCursor([items[items.length - 1]!.pos]) : null,
      total: await this.d.repos.statementBreaks.count(queue, filter),
    };
  }

  /** The whole queue as a formula-safe CSV file (at most MAX_CSV_ROWS rows, saying so when cut). */
  async exportCsv(queue: BreakQueue, scope: StatementScope): Promise<CsvFile> {
    const { filter, days } = this.filter(scope);
    const rows: BreakRow[] = [];
    let after: number | null = null;
    for (;;) {
      const page = await this.d.repos.statementBreaks.page(queue, filter, after, 5_000);
      rows.push(...page.map((r) => this.row(queue, r, days)));
      if (page.length < 5_000 || rows.length > MAX_CSV_ROWS) break;
      after = page[page.length - 1]!.pos;
    }
    const truncated = rows.length > MAX_CSV_ROWS;
    const kept = rows.slice(0, MAX_CSV_ROWS);
    const day = isoTime(this.d.now()).slice(0, 10);
    return { filename: `paydesk-statements-${queue.replaceAll('_', '-')}-${day}.csv`, rows: kept.length, truncated, csv: toCsv(kept, COLUMNS) };
  }
}
