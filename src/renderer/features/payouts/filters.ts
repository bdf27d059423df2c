// The payouts list's filters live in the route (`#/payouts?status=P200&method=fps`), so a reload
// or a link lands on the same list. Route params ↔ filter model ↔ the contract's list query, and
// whether a payout pushed live belongs in the list as filtered (the rules main applies).
import dayjs from 'dayjs';
import type { PayoutView } from '../../../shared/contract';
import type { PayoutQuery } from './payouts-store';

export interface PayoutFilters {
  statusCodes: string[];
  methods: string[];
  currencies: string[];
  /** First and last day shown (YYYY-MM-DD, local), inclusive. */
  from: string | null;
  to: string | null;
  /** Prefix of merchantReference, payout_id or e-mail. */
  search: string;
}

export const NO_FILTERS: PayoutFilters = { statusCodes: [], methods: [], currencies: [], from: null, to: null, search: '' };

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const list = (value: string | undefined) => (value ? value.split(',').map((v) => v.trim()).filter((v) => v !== '') : []);
const day = (value: string | undefined) => (value && DAY.test(value) && dayjs(value).isValid() ? value : null);

export function filtersFromParams(params: Record<string, string>): PayoutFilters {
  return {
    statusCodes: list(params.status).map((c) => c.toUpperCase()),
    methods: list(params.method),
    currencies: list(params.currency).map((c) => c.toUpperCase()).filter((c) => /^[A-Z]{3}$/.test(c)),
    from: day(params.from),
    to: day(params.to),
    search: (params.q ?? '').trim(),
  };
}

export function filtersToParams(f: PayoutFilters): Record<string, string> {
  const params: Record<string, string> = {};
  if (f.statusCodes.length > 0) params.status = f.statusCodes.join(',');
  if (f.methods.length > 0) params.method = f.methods.join(',');
  if (f.currencies.length > 0) params.currency = f.currencies.join(',');
  if (f.from) params.from = f.from;
  if (f.to) params.to = f.to;
  if (f.search) params.q = f.search;
  return params;
}

/** Days are the user's local days (the list shows local times); the last one is inclusive on screen, exclusive in the query. */
export function filtersToQuery(f: PayoutFilters): PayoutQuery {
  const query: PayoutQuery = {};
  if (f.statusCodes.length > 0) query.statusCodes = f.statusCodes;
  if (f.methods.length > 0) query.methods = f.methods;
  if (f.currencies.length > 0) query.currencies = f.currencies;
  if (f.from) query.createdFrom = dayjs(f.from).startOf('day').toISOString();
  if (f.to) query.createdTo = dayjs(f.to).add(1, 'day').startOf('day').toISOString();
  if (f.search) query.search = f.search;
  return query;
}

export function hasAnyFilter(f: PayoutFilters): boolean {
  return Object.keys(filtersToParams(f)).length > 0;
}

/** The same filters in any order give the same key. */
export function queryKey(q: PayoutQuery): string {
  const entries = Object.entries(q)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, Array.isArray(v) ? [...(v as string[])].sort() : v] as const)
    .sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify(entries);
}

const within = (values: readonly string[] | undefined, value: string | null) => !values || values.length === 0 || (value !== null && values.includes(value));

export function matchesPayoutQuery(q: PayoutQuery, p: PayoutView): boolean {
  if (!within(q.statusCodes, p.statusCode) || !within(q.methods, p.method) || !within(q.currencies, p.currency)) return false;
  const created = Date.parse(p.createdAt);
  if (q.createdFrom !== undefined && created < Date.parse(q.createdFrom)) return false;
  if (q.createdTo !== undefined && created >= Date.parse(q.createdTo)) return false;
  if (q.search) {
    const term = q.search;
    if (!(p.merchantReference.startsWith(term) || (p.payoutId ?? '').startsWith(term) || p.email.toLowerCase().startsWith(term.toLowerCase()))) return false;
  }
  return true;
}
