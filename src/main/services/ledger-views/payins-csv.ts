// The pay-ins list as CSV, exactly as filtered and ordered on screen: every keyset page in turn,
// each written out before the next is read (never the whole result held as rows), up to a row cap,
// through the reconciliation module's formula-safe writer (card numbers masked, formulas neutralised).
import type { SavedViewFilters } from '../../../shared/contract';
import { describePayinStatus } from '../../../shared/spec/codes';
import type { Repositories } from '../../ledger/repositories/index';
import { MAX_PAGE_SIZE } from '../../ledger/repositories/page';
import type { PayinRecord } from '../../ledger/repositories/payins';
import { isoTime, type Clock } from '../../ledger/support';
import { toCsv, type CsvColumn } from '../reconciliation/csv';
import { guarded, toFilter } from './ledger-views';

/** Beyond this the file says it was cut short: a spreadsheet is the wrong tool for more. */
export const PAYINS_CSV_MAX_ROWS = 100_000;

const COLUMNS: CsvColumn<PayinRecord>[] = [
  { header: 'created_at', value: (r) => r.createdAt },
  { header: 'request_id', value: (r) => r.requestId },
  { header: 'payin_id', value: (r) => r.payinId },
  { header: 'kind', value: (r) => r.kind },
  { header: 'method', value: (r) => r.method },
  { header: 'amount', value: (r) => r.amount },
  { header: 'currency', value: (r) => r.currency },
  { header: 'email', value: (r) => r.email },
  { header: 'status_code', value: (r) => r.statusCode },
  { header: 'status_meaning', value: (r) => (r.statusCode === null ? null : describePayinStatus(r.statusCode).meaning) },
  { header: 'status_category', value: (r) => r.statusCategory },
  { header: 'final', value: (r) => r.final },
  { header: 'reason_code', value: (r) => r.reasonCode },
  { header: 'last_notified_status', value: (r) => r.lastNotifiedStatus },
  { header: 'last_verified_status', value: (r) => r.lastVerifiedStatus },
  { header: 'verification', value: (r) => r.verification },
  { header: 'mismatch', value: (r) => r.mismatch },
  { header: 'profile_id', value: (r) => r.profileId },
];

export function exportPayinsCsv(
  deps: { repos: Repositories; now: Clock },
  filters: SavedViewFilters,
  cap: number = PAYINS_CSV_MAX_ROWS,
): { filename: string; rows: number; truncated: boolean; csv: string } {
  return guarded(() => {
    const filter = toFilter(filters);
    const chunks = [toCsv([], COLUMNS)];
    let rows = 0;
    let truncated = false;
    let cursor: string | null = null;
    do {
      // One row more than the cap leaves room, so "exactly the cap" is told apart from "more".
      const page = deps.repos.payins.page(filter, { cursor, limit: Math.min(MAX_PAGE_SIZE, cap - rows + 1), order: filters.sort });
      const items = page.items.slice(0, cap - rows);
      truncated = items.length < page.items.length;
      if (items.length > 0) chunks.push(toCsv(items, COLUMNS, { header: false }));
      rows += items.length;
      cursor = truncated ? null : page.nextCursor;
    } while (cursor !== null);
    const stamp = isoTime(deps.now()).replace(/[:.]/g, '-');
    return { filename: `paydesk-payins-${stamp}.csv`, rows, truncated, csv: chunks.join('') };
  });
}
