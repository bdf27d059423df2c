// The pay-ins list's filters live in the route (`#/payins?status=302&method=blik`), so a reload,
// a link from the code explorer (it links `status` and `reason`) or a saved view all land on the
// same list. This file converts between the route's params, the filter bar's model and the
// contract's list query.
import dayjs from 'dayjs';
import type { SavedViewFilters, StatusCategoryView } from '../../../shared/contract';
import { categoryLabels } from '../codes/category';

export type SortOrder = 'newest' | 'oldest';

export interface PayinFilters {
  statusCodes: string[];
  reasonCodes: string[];
  categories: StatusCategoryView[];
  methods: string[];
  currencies: string[];
  /** First day shown (YYYY-MM-DD), inclusive. */
  from: string | null;
  /** Last day shown (YYYY-MM-DD), inclusive. */
  to: string | null;
  hasMismatch: boolean;
  /** Prefix of request_id, payin_id or e-mail. */
  search: string;
  sort: SortOrder;
}

export const NO_FILTERS: PayinFilters = { statusCodes: [], reasonCodes: [], categories: [], methods: [], currencies: [], from: null, to: null, hasMismatch: false, search: '', sort: 'newest' };

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const list = (value: string | undefined) => (value ? value.split(',').map((v) => v.trim()).filter((v) => v !== '') : []);
const day = (value: string | undefined) => (value && DAY.test(value) && dayjs(value).isValid() ? value : null);

/** Route params → filters; values that cannot be meant (a bad date, an unknown category) are dropped. */
export function filtersFromParams(params: Record<string, string>): PayinFilters {
  return {
    statusCodes: list(params.status),
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
export function filtersToParams(f: PayinFilters): Record<string, string> {
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
export function filtersToQuery(f: PayinFilters): SavedViewFilters {
  const query: SavedViewFilters = {};
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
export function filtersFromQuery(q: SavedViewFilters): PayinFilters {
  const to = q.createdTo ? dayjs(q.createdTo).subtract(1, 'day').format('YYYY-MM-DD') : null;
  return {
    statusCodes: q.statusCodes ?? [],
    reasonCodes: q.reasonCodes ?? [],
    categories: q.categories ?? [],
    methods: q.methods ?? [],
    currencies: q.currencies ?? [],
    from: q.createdFrom ? dayjs(q.createdFrom).format('YYYY-MM-DD') : null,
    to,
    hasMismatch: q.hasMismatch === true,
    search: q.search ?? '',
    sort: q.sort ?? 'newest',
  };
}

/** A stable key for a query: same filters in any order give the same key. */
export function queryKey(q: SavedViewFilters): string {
  const entries = Object.entries(q)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, Array.isArray(v) ? [...(v as string[])].sort() : v] as const)
    .sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify(entries);
}

export function hasAnyFilter(f: PayinFilters): boolean {
  return queryKey(filtersToQuery({ ...f, sort: 'newest' })) !== queryKey({});
}
