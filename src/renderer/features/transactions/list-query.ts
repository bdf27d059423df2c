// A transaction list's filters (pay-ins and payouts alike) live in the route
// (`#/payins?status=302&method=blik`, `#/payouts?status=P200`), so a reload, a link from the code
// explorer (it links `status` and `reason`) or a saved view all land on the same list. This file
// converts between the route's params, the filter bar's model and the contract's list query, and
// says whether a row pushed live belongs in the list as filtered and where it sorts.
import dayjs from 'dayjs';
import type { PayinView, PayoutView, SavedViewFilters, StatusCategoryView } from '../../../shared/contract';
import { categoryLabels } from '../codes/category';
import { queryKey } from '../../stores/keyset-list';

export type SortOrder = 'newest' | 'oldest';

/** The contract's list query without position, size or profile (what a saved view holds). */
export type TransactionQuery = SavedViewFilters;

export interface TransactionFilters {
  statusCodes: string[];
  reasonCodes: string[];
  categories: StatusCategoryView[];
  methods: string[];
  currencies: string[];
  /** First day shown (YYYY-MM-DD, local), inclusive. */
  from: string | null;
  /** Last day shown (YYYY-MM-DD, local), inclusive. */
  to: string | null;
  hasMismatch: boolean;
  /** Prefix of the reference, the gateway id or the e-mail. */
  search: string;
  sort: SortOrder;
}

export const NO_FILTERS: TransactionFilters = { statusCodes: [], reasonCodes: [], categories: [], methods: [], currencies: [], from: null, to: null, hasMismatch: false, search: '', sort: 'newest' };

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const list = (value: string | undefined) => (value ? value.split(',').map((v) => v.trim()).filter((v) => v !== '') : []);
const day = (value: string | undefined) => (value && DAY.test(value) && dayjs(value).isValid() ? value : null);

/** Route params → filters; values that cannot be meant (a bad date, an unknown category) are dropped. */
export function filtersFromParams(params: Record<string, string>): TransactionFilters {
  return {
    // Payout codes are upper case (P200, C405); pay-in codes are digits either way.
    statusCodes: list(params.status).map((c) => c.toUpperCase()),
    reasonCodes: list(params.reason),
    categories: list(params.category).filter((c): c is StatusCategoryView => Object.hasOwn(categoryLabels, c)),
    methods: list(params.method),
    currencies: list(params.currency).map((c) => c.toUpperCase()).filter((c) => /^[A-Z]{3}$/.test(c)),
    from: day(params.from),
    to: day(params.to),
    hasMismatch: params.mismatch === '1' || params.mismatch === 'true',
    search: (params.q ?? '').trim(),
    sort: params.sort === 'oldest' ? 'oldest' : 'newest',
  };
}

/** Filters → route params, only the ones set (so the plain list is just `#/payins`). */
export function filtersToParams(f: TransactionFilters): Record<string, string> {
  const params: Record<string, string> = {};
  if (f.statusCodes.length > 0) params.status = f.statusCodes.join(',');
  if (f.reasonCodes.length > 0) params.reason = f.reasonCodes.join(',');
  if (f.categories.length > 0) params.category = f.categories.join(',');
  if (f.methods.length > 0) params.method = f.methods.join(',');
  if (f.currencies.length > 0) params.currency = f.currencies.join(',');
  if (f.from) params.from = f.from;
  if (f.to) params.to = f.to;
  if (f.hasMismatch) params.mismatch = '1';
  if (f.search) params.q = f.search;
  if (f.sort === 'oldest') params.sort = 'oldest';
  return params;
}

/**
 * Filters → the contract's query. Days are the user's local days (the list shows local times),
 * sent as instants; the last day is inclusive on screen, exclusive in the query.
 */
export function filtersToQuery(f: TransactionFilters): TransactionQuery {
  const query: TransactionQuery = {};
  if (f.statusCodes.length > 0) query.statusCodes = f.statusCodes;
  if (f.reasonCodes.length > 0) query.reasonCodes = f.reasonCodes;
  if (f.categories.length > 0) query.categories = f.categories;
  if (f.methods.length > 0) query.methods = f.methods;
  if (f.currencies.length > 0) query.currencies = f.currencies;
  if (f.from) query.createdFrom = dayjs(f.from).startOf('day').toISOString();
  if (f.to) query.createdTo = dayjs(f.to).add(1, 'day').startOf('day').toISOString();
  if (f.hasMismatch) query.hasMismatch = true;
  if (f.search) query.search = f.search;
  if (f.sort === 'oldest') query.sort = 'oldest';
  return query;
}

/** A saved view's query → filters (the inverse of filtersToQuery). */
export function filtersFromQuery(q: TransactionQuery): TransactionFilters {
  return {
    statusCodes: q.statusCodes ?? [],
    reasonCodes: q.reasonCodes ?? [],
    categories: q.categories ?? [],
    methods: q.methods ?? [],
    currencies: q.currencies ?? [],
    from: q.createdFrom ? dayjs(q.createdFrom).format('YYYY-MM-DD') : null,
    to: q.createdTo ? dayjs(q.createdTo).subtract(1, 'day').format('YYYY-MM-DD') : null,
    hasMismatch: q.hasMismatch === true,
    search: q.search ?? '',
    sort: q.sort ?? 'newest',
  };
}

export function hasAnyFilter(f: TransactionFilters): boolean {
  return queryKey(filtersToQuery({ ...f, sort: 'newest' })) !== queryKey({});
}

type Row = PayinView | PayoutView;

/** The references a search prefix is matched against: request_id / merchantReference and payin_id / payout_id. */
const references = (row: Row): [string, string | null] => ('requestId' in row ? [row.requestId, row.payinId] : [row.merchantReference, row.payoutId]);

const within = (values: readonly string[] | undefined, value: string | null) => !values || values.length === 0 || (value !== null && values.includes(value));

/** Whether a row belongs in the list as filtered: the rules main applies (transactions.ts filterConditions). */
export function matchesQuery(q: TransactionQuery, row: Row): boolean {
  if (!within(q.statusCodes, row.statusCode)) return false;
  if (!within(q.reasonCodes, row.reasonCode)) return false;
  if (!within(q.categories, row.statusCategory)) return false;
  if (!within(q.methods, row.method)) return false;
  if (!within(q.currencies, row.currency)) return false;
  const created = Date.parse(row.createdAt);
  if (q.createdFrom !== undefined && created < Date.parse(q.createdFrom)) return false;
  if (q.createdTo !== undefined && created >= Date.parse(q.createdTo)) return false;
  if (q.hasMismatch !== undefined && row.mismatch !== q.hasMismatch) return false;
  if (q.final !== undefined && row.final !== q.final) return false;
  if (q.search) {
    // Prefix of the reference or gateway id (exact case), or of the e-mail (any case), like main.
    const term = q.search;
    const [reference, gatewayId] = references(row);
    if (!(reference.startsWith(term) || (gatewayId ?? '').startsWith(term) || row.email.toLowerCase().startsWith(term.toLowerCase()))) return false;
  }
  return true;
}

/**
 * Whether a row's membership can change after it is created: status, reason, category, mismatch
 * and final move with the gateway's answers, and a search can match the gateway id once it is
 * known; method, currency, creation time, reference and e-mail never change.
 */
export function isVolatile(q: TransactionQuery): boolean {
  const moving = [q.statusCodes, q.reasonCodes, q.categories].some((values) => values !== undefined && values.length > 0);
  return moving || q.hasMismatch !== undefined || q.final !== undefined || Boolean(q.search);
}

/** The ledger's order: creation time, then id; newest first unless the query says oldest. */
export function compareRows(q: TransactionQuery, a: Row, b: Row): number {
  const older = a.createdAt === b.createdAt ? a.id - b.id : a.createdAt < b.createdAt ? -1 : 1;
  return q.sort === 'oldest' ? older : -older;
}
