// `?from=YYYY-MM-DD&to=YYYY-MM-DD&currency=EUR` of the settlement and statement routes: whole UTC
// days, both ends included, each optional.
import type { Request } from '../http/types';

export interface RangeQuery {
  from?: string | undefined;
  to?: string | undefined;
  currency?: string | undefined;
}

function isDate(text: string): boolean {
  const ms = Date.parse(`${text}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(text);
}

/** The range asked for, or an error message naming the bad parameter. */
export function rangeQuery(req: Request): RangeQuery | string {
  const from = req.query.get('from') ?? undefined;
  const to = req.query.get('to') ?? undefined;
  const currency = req.query.get('currency') ?? undefined;
  for (const [key, value] of [['from', from], ['to', to]] as const) {
    if (value !== undefined && !isDate(value)) return `${key} must be a date YYYY-MM-DD`;
  }
  if (from !== undefined && to !== undefined && from > to) return 'from must not be after to';
  if (currency !== undefined && !/^[A-Z]{3}$/.test(currency)) return 'currency must be an ISO 4217 code such as EUR';
  return { from, to, currency };
}
