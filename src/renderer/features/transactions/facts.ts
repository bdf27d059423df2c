// Facts a support agent needs that live in the raw timeline rather than on the ledger row.
import type { TimelineEntry } from '../../../shared/contract';
import { jsonObject } from './format';

/** error_code (spec 2.3, "quote it to support") of the latest refused answer, if any. */
export function lastErrorCode(entries: readonly TimelineEntry[]): { code: string; at: string } | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as TimelineEntry;
    if ((entry.kind !== 'response' && entry.kind !== 'status_read') || entry.outcome !== 'rejected') continue;
    const code = jsonObject(entry.response)?.error_code;
    if (typeof code === 'string' || typeof code === 'number') return { code: String(code), at: entry.at };
  }
  return null;
}
