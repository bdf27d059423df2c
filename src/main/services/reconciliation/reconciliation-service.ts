// Reconciliation as the contract offers it: totals, exception lists and their counts, the sweep,
// and CSV exports of any list and of the totals.
import type { ExceptionKind, ExceptionRow, SweepState, TotalsInput, TotalsRow } from '../../../shared/contract';
import type { Ledger } from '../../ledger/connection';
import type { TransactionKind } from '../../ledger/status';
import { isoTime, type Clock } from '../../ledger/support';
import { toCsv, type CsvColumn } from './csv';
import { ExceptionLists, type ExceptionQuery } from './exceptions';
import type { Sweeper } from './sweep';
import { computeTotals } from './totals';

/** Rows per CSV file: beyond it the file is cut and says so (the contract returns text, not a stream). */
export const MAX_CSV_ROWS = 200_000;

const EXCEPTION_COLUMNS: CsvColumn<ExceptionRow>[] = [
  { header: 'list', value: (r) => r.kind },
  { header: 'subject', value: (r) => r.subject },
  { header: 'row_id', value: (r) => r.rowId },
  { header: 'profile_id', value: (r) => r.profileId },
  { header: 'reference', value: (r) => r.reference },
  { header: 'gateway_id', value: (r) => r.gatewayId },
  { header: 'method', value: (r) => r.method },
  { header: 'amount', value: (r) => r.amount },
  { header: 'currency', value: (r) => r.currency },
  { header: 'status_code', value: (r) => r.statusCode },
  { header: 'notified_status', value: (r) => r.notifiedStatus },
  { header: 'verified_status', value: (r) => r.verifiedStatus },
  { header: 'at', value: (r) => r.at },
  { header: 'notification_id', value: (r) => r.notificationId },
  { header: 'attempt_id', value: (r) => r.attemptId },
  { header: 'detail', value: (r) => r.detail },
];

const TOTALS_COLUMNS: CsvColumn<TotalsRow>[] = [
  { header: 'subject', value: (r) => r.subject },
  { header: 'day', value: (r) => r.day },
  { header: 'currency', value: (r) => r.currency },
  { header: 'method', value: (r) => r.method },
  { header: 'status_code', value: (r) => r.statusCode },
  { header: 'status_category', value: (r) => r.statusCategory },
  { header: 'final', value: (r) => r.final },
  { header: 'count', value: (r) => r.count },
  { header: 'amount', value: (r) => r.amount },
];

export type CsvExportInput =
  | { what: 'exceptions'; kind: ExceptionKind; profileId?: string | undefined; pendingOlderThanMinutes?: number | undefined }
  | { what: 'totals'; profileId?: string | undefined; from?: string | undefined; to?: string | undefined; subjects?: TransactionKind[] | undefined };

export class ReconciliationService {
  private readonly lists: ExceptionLists;

  constructor(
    private readonly deps: { db: Ledger; now: Clock; sweeper: Sweeper },
  ) {
    this.lists = new ExceptionLists(deps.db, deps.now);
  }

  totals(input: TotalsInput) {
    return computeTotals(this.deps.db, input);
  }

  exceptions(query: ExceptionQuery) {
    return { kind: query.kind, ...this.lists.page(query) };
  }

  summary(profileId: string | undefined, pendingOlderThanMinutes: number | undefined) {
    return { counts: this.lists.counts(profileId, pendingOlderThanMinutes) };
  }

  startSweep(options: { profileId?: string | undefined; subjects?: TransactionKind[] | undefined }): SweepState {
    return this.deps.sweeper.start(options);
  }

  cancelSweep(id?: string) {
    return this.deps.sweeper.cancel(id);
  }

  sweepStatus() {
    return { sweep: this.deps.sweeper.current() };
  }

  exportCsv(input: CsvExportInput): { filename: string; csv: string; rows: number; truncated: boolean } {
    const stamp = isoTime(this.deps.now()).replace(/[:.]/g, '-');
    if (input.what === 'totals') {
      const { rows } = computeTotals(this.deps.db, input);
      const kept = rows.slice(0, MAX_CSV_ROWS);
      return { filename: `paydesk-totals-${stamp}.csv`, csv: toCsv(kept, TOTALS_COLUMNS), rows: kept.length, truncated: rows.length > kept.length };
    }
    const { items, truncated } = this.lists.all({ kind: input.kind, profileId: input.profileId, pendingOlderThanMinutes: input.pendingOlderThanMinutes }, MAX_CSV_ROWS);
    return { filename: `paydesk-${input.kind.replace(/_/g, '-')}-${stamp}.csv`, csv: toCsv(items, EXCEPTION_COLUMNS), rows: items.length, truncated };
  }
}
