// The pay-ins or payouts list as CSV, exactly as filtered and ordered on screen: every keyset page
// in turn, each written out before the next is read (never the whole result held as rows), up to a
// row cap, through the reconciliation module's formula-safe writer (card numbers masked, formulas
// neutralised). The two lists differ only in their reference columns (CsvSubject).
import type { CardView, CsvFile, SavedViewFilters, TransactionSubject } from '../../../shared/contract';
import { describeStatusOf } from '../../../shared/spec/codes';
import type { Repositories } from '../../ledger/repositories/index';
import { MAX_PAGE_SIZE, type Page, type PageRequest } from '../../ledger/repositories/page';
import type { PayinRecord } from '../../ledger/repositories/payins';
import type { PayoutRecord } from '../../ledger/repositories/payouts';
import type { TransactionFilter, TransactionRecord } from '../../ledger/repositories/transactions';
import { isoTime, type Clock } from '../../ledger/support';
import { cardView } from '../payments/views';
import { toCsv, type CsvColumn } from '../reconciliation/csv';
import { guarded, toFilter } from './list-filter';

/** Beyond this the file says it was cut short: a spreadsheet is the wrong tool for more. */
export const TRANSACTIONS_CSV_MAX_ROWS = 100_000;

/** A row with the card it recorded, as its CSV line is written. */
type CsvRow<R extends TransactionRecord> = R & { card: CardView | null };

/** What one list's export has of its own: where its rows come from, its name and its reference columns. */
export interface CsvSubject<R extends TransactionRecord> {
  subject: TransactionSubject;
  /** "payins": in the file's name. */
  plural: string;
  pages: (repos: Repositories) => { page(filter: TransactionFilter, request: PageRequest): Promise<Page<R>> };
  /** The spec's names of the merchant's reference and the gateway's id (and the pay-in's kind), after created_at. */
  references: CsvColumn<CsvRow<R>>[];
}

export const PAYINS_CSV: CsvSubject<PayinRecord> = {
  subject: 'payin',
  plural: 'payins',
  pages: (repos) => repos.payins,
  references: [
    { header: 'request_id', value: (r) => r.requestId, exact: true },
    { header: 'payin_id', value: (r) => r.payinId, exact: true },
    { header: 'kind', value: (r) => r.kind },
  ],
};

export const PAYOUTS_CSV: CsvSubject<PayoutRecord> = {
  subject: 'payout',
  plural: 'payouts',
  pages: (repos) => repos.payouts,
  references: [
    { header: 'merchantReference', value: (r) => r.merchantReference, exact: true },
    { header: 'payout_id', value: (r) => r.payoutId, exact: true },
  ],
};

/** The columns of every transaction list: created_at, the subject's references, then these. */
function columnsOf<R extends TransactionRecord>({ subject, references }: CsvSubject<R>): CsvColumn<CsvRow<R>>[] {
  return [
    { header: 'created_at', value: (r) => r.createdAt, exact: true },
    ...references,
    { header: 'method', value: (r) => r.method },
    { header: 'amount', value: (r) => r.amount, exact: true },
    { header: 'currency', value: (r) => r.currency, exact: true },
    { header: 'email', value: (r) => r.email },
    { header: 'card_brand', value: (r) => r.card?.brand ?? null },
    { header: 'card', value: (r) => r.card?.maskedPan ?? null },
    { header: 'card_expiry', value: (r) => (r.card?.expMonth && r.card.expYear ? `${r.card.expMonth}/${r.card.expYear}` : null), exact: true },
    { header: 'status_code', value: (r) => r.statusCode, exact: true },
    { header: 'status_meaning', value: (r) => (r.statusCode === null ? null : describeStatusOf(subject, r.statusCode).meaning) },
    { header: 'status_category', value: (r) => r.statusCategory },
    { header: 'final', value: (r) => r.final },
    { header: 'reason_code', value: (r) => r.reasonCode, exact: true },
    { header: 'last_notified_status', value: (r) => r.lastNotifiedStatus, exact: true },
    { header: 'last_verified_status', value: (r) => r.lastVerifiedStatus, exact: true },
    { header: 'verification', value: (r) => r.verification },
    { header: 'mismatch', value: (r) => r.mismatch },
    { header: 'profile_id', value: (r) => r.profileId, exact: true },
  ];
}

/** The CSV export of either list; the list's CsvSubject says which. */
export class TransactionsCsvExport {
  constructor(private readonly deps: { repos: Repositories; now: Clock }) {}

  export<R extends TransactionRecord>(list: CsvSubject<R>, filters: SavedViewFilters, cap: number = TRANSACTIONS_CSV_MAX_ROWS): Promise<CsvFile> {
    const { repos, now } = this.deps;
    return guarded(async () => {
      const filter = toFilter(filters);
      const columns = columnsOf(list);
      const repository = list.pages(repos);
      const chunks = [toCsv([], columns)];
      let rows = 0;
      let truncated = false;
      let cursor: string | null = null;
      do {
        // One row more than the cap leaves room, so "exactly the cap" is told apart from "more".
        const page = await repository.page(filter, { cursor, limit: Math.min(MAX_PAGE_SIZE, cap - rows + 1), order: filters.sort });
        const items = page.items.slice(0, cap - rows);
        truncated = items.length < page.items.length;
        const cards = await repos.cards.of(list.subject, items.map((r) => r.id));
        const lines = items.map((r): CsvRow<R> => Object.assign(r, { card: cardView(cards.get(r.id) ?? null) }));
        if (lines.length > 0) chunks.push(toCsv(lines, columns, { header: false }));
        rows += items.length;
        cursor = truncated ? null : page.nextCursor;
      } while (cursor !== null);
      const stamp = isoTime(now()).replace(/[:.]/g, '-');
      return { filename: `paydesk-${list.plural}-${stamp}.csv`, rows, truncated, csv: chunks.join('') };
    });
  }
}
