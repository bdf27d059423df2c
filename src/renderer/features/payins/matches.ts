// Whether a pay-in pushed live belongs in the list as filtered: the same rules main applies
// (transactions.ts filterConditions), so a new row appears only where a reload would show it.
import type { PayinView, SavedViewFilters } from '../../../shared/contract';

const within = (values: readonly string[] | undefined, value: string | null) => !values || values.length === 0 || (value !== null && values.includes(value));

export function matchesQuery(q: SavedViewFilters, p: PayinView): boolean {
  if (!within(q.statusCodes, p.statusCode)) return false;
  if (!within(q.reasonCodes, p.reasonCode)) return false;
  if (!within(q.categories, p.statusCategory)) return false;
  if (!within(q.methods, p.method)) return false;
  if (!within(q.currencies, p.currency)) return false;
  const created = Date.parse(p.createdAt);
  if (q.createdFrom !== undefined && created < Date.parse(q.createdFrom)) return false;
  if (q.createdTo !== undefined && created >= Date.parse(q.createdTo)) return false;
  if (q.hasMismatch !== undefined && p.mismatch !== q.hasMismatch) return false;
  if (q.search) {
    // Prefix of the reference or gateway id (exact case), or of the e-mail (any case), like main.
    const term = q.search;
    const hit = p.requestId.startsWith(term) || (p.payinId ?? '').startsWith(term) || p.email.toLowerCase().startsWith(term.toLowerCase());
    if (!hit) return false;
  }
  return true;
}
