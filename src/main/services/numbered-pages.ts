// Three lists page by a number in their contract, which the renderer keeps: batches:list and
// notifications:list by a row id (newest first), batches:items by a line. The ledger pages them
// like every list (one Page shape, one cursor codec, whose position for them is that number), and
// this is the one place where the number and the cursor meet.
import { decodeCursor, encodeCursor, type Page } from '../ledger/repositories/page';

/** The cursor of the page that starts after this number (none: the first page). */
export function numberCursor(position: number | null | undefined): string | null {
  return position === null || position === undefined ? null : encodeCursor([position]);
}

/** The page with the number the next one starts after, instead of its cursor. */
export function numberedPage<T>(page: Page<T>): { items: T[]; next: number | null } {
  return { items: page.items, next: page.nextCursor === null ? null : decodeCursor(page.nextCursor, ['number'])[0] };
}
