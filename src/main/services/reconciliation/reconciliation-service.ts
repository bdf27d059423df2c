// Reconciliation as the contract offers it: totals, exception lists and their counts, the sweep,
// and CSV exports of any list and of the totals.
import type { CsvFile, ExceptionKind, ExceptionRow, ExceptionScope, SweepState, TotalsInput, TotalsRow } from '../../../shared/contract';
import type { Repositories } from '../../ledger/repositories/index';
import type { TransactionKind } from '../../ledger/status';
import { isoTime, type Clock } from '../../ledger/support';
import { toCsv, type CsvColumn } from './csv';
import { ExceptionLists, type ExceptionQuery } from './exceptions';
import type { ReferenceReads } from '../verification/reference-reads';
import type { Sweeper } from './sweep';
import { computeTotals } from './totals';

/** Rows per CSV file: beyond it the file is cut and says so (the contract returns text, not a stream). */
export const MAX_CSV_ROWS = 200_000;

const EXCEPTION_COLUMNS: CsvColumn<ExceptionRow>[] = [
  { header: 'list', value: (r) => r.kind },
  { header: 'subject', value: (r) => r.subject },
  { header: 'row_id', value: (r) => r.rowId, exact: true },
  { header: 'profile_id', value: (r) => r.profileId, exact: true },
  { header: 'reference', value: (r) => r.reference, exact: true },
  { header: 'gateway_id', value: (r) => r.gatewayId, exact: true },
  { header: 'method', value: (r) => r.method },
  { header: 'amount', value: (r) => r.amount, exact: true },
  { header: 'currency', value: (r) => r.currency, exact: true },
  { header: 'status_code', value: (r) => r.statusCode, exact: true },
  { header: 'notified_status', value: (r) => r.notifiedStatus, exact: true },
  { header: 'verified_status', value: (r) => r.verifiedStatus, exact: true },
  { header: 'verification', value: (r) => r.verification },
  { header: 'at', value: (r) => r.at, exact: true },
  { header: 'notification_id', value: (r) => r.notificationId, exact: true },
  { header: 'attempt_id', value: (r) => r.attemptId, exact: true },
  { header: 'detail', value: (r) => r.detail },
];

const TOTALS_COLUMNS: CsvColumn<TotalsRow>[] = [
  { header: 'subject', value: (r) => r.subject },
  { header: 'day', value: (r) => r.day, exact: true },
  { header: 'currency', value: (r) => r.currency, exact: true },
  { header: 'method', value: (r) => r.method },
  { header: 'status_code', value: (r) => r.statusCode, exact: true },
  { header: 'status_category', value: (r) => r.statusCategory },
  { header: 'final', value: (r) => r.final },
  { header: 'count', value: (r) => r.count, exact: true },
  { header: 'amount', value: (r) => r.amount, exact: true },
];

export type CsvExportInput =
  | ({ what: 'exceptions'; kind: ExceptionKind } & ExceptionScope)
  | { what: 'totals'; profileId?: string | undefined; from?: string | undefined; to?: string | undefined; subjects?: TransactionKind[] | undefined };

export class ReconciliationService {
  private readonly lists: ExceptionLists;

  constructor(
    private readonly deps: { repos: Pick<Repositories, 'exceptions' | 'totals'>; now: Clock; sweeper: Sweeper; referenceReads?: Pick<ReferenceReads, 'refusalFor'> },
  ) {
    this.lists = new ExceptionLists(deps.repos.exceptions, deps.now, deps.referenceReads);
  }

  totals(input: TotalsInput) {
    return computeTotals(this.deps.repos.totals, input);
  }

  async exceptions(query: ExceptionQuery) {
    return { kind: query.kind, ...(await this.lists.page(query)) };
  }

  async summary(scope: ExceptionScope) {
    return { counts: await this.lists.counts(scope) };
  }

  startSweep(options: { profileId?: string | undefined; subjects?: TransactionKind[] | undefined }): Promise<SweepState> {
    return this.deps.sweeper.start(options);
  }

  cancelSweep(id?: string) {
    return this.deps.sweeper.cancel(id);
  }

  sweepStatus() {
    return { sweep: this.deps.sweeper.current() };
  }

  async exportCsv(input: CsvExportInput): Promise<CsvFile> {
    const stamp = isoTime(this.deps.now()).replace(/[:.]/g, '-');
    if (input.what === 'totals') {
      const { rows } = await computeTotals(this.deps.repos.totals, input);
      const kept = rows.slice(0, MAX_CSV_ROWS);
      return { filename: `paydesk-totals-${stamp}.csv`, csv: toCsv(kept, TOTALS_COLUMNS), rows: kept.length, truncated: rows.length > kept.length };
    }
    const { what: _what, ...query } = input;
    const { items, truncated } = await this.lists.all(query, MAX_CSV_ROWS);
    return { filename: `paydesk-${input.kind.replace(/_/g, '-')}-${stamp}.csv`, csv: toCsv(items, EXCEPTION_COLUMNS), rows: items.length, truncated };
  }
}
