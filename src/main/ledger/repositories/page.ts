// Keyset pagination on (created_at, id), newest first (or oldest first, on request). A cursor
// names the last row of a page, so rows inserted meanwhile never shift later pages (no
// duplicates, no skips), and every page costs one index range scan however deep the user
// scrolls (OFFSET would rescan all earlier rows).
import { isoTime } from '../support';

export interface PageRequest {
  /** 1–500, default 50. */
  limit?: number;
  /** nextCursor of the previous page; absent for the first page. */
  cursor?: string | null;
  /** Default newest first. Either way one index range scan: SQLite walks the same index backwards. */
  order?: PageOrder;
}

export type PageOrder = 'newest' | 'oldest';

export interface Page<T> {
  items: T[];
  /** Pass back to get the next page (older, or newer when oldest first); null on the last page. */
  nextCursor: string | null;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

interface Position {
  createdAt: string;
  id: number;
}

export function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id]), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): Position {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && Number.isSafeInteger(value[1])) {
      return { createdAt: isoTime(value[0]), id: value[1] as number };
    }
  } catch {
    // fall through to the one error below
  }
  throw new RangeError('invalid page cursor');
}

export function pageSize(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError('page limit must be a positive integer');
  return Math.min(limit, MAX_PAGE_SIZE);
}

/** WHERE terms collected with their parameters; column names come from code, never from input. */
export class Conditions {
  readonly terms: string[] = [];
  readonly params: unknown[] = [];

  add(term: string, ...params: unknown[]): this {
    this.terms.push(term);
    this.params.push(...params);
    return this;
  }

  /** An empty list means "no filter" (a multi-select with nothing picked). */
  oneOf(column: string, values: readonly unknown[] | undefined): this {
    if (values && values.length > 0) this.add(`${column} IN (${values.map(() => '?').join(', ')})`, ...values);
    return this;
  }

  after(request: PageRequest): this {
    if (request.cursor) {
      const position = decodeCursor(request.cursor);
      this.add(`(created_at, id) ${request.order === 'oldest' ? '>' : '<'} (?, ?)`, position.createdAt, position.id);
    }
    return this;
  }

  sql(): string {
    return this.terms.length > 0 ? `WHERE ${this.terms.join(' AND ')}` : '';
  }
}

/** The ORDER BY of a page in this order (the cursor's columns). */
export function pageOrderBy(order: PageOrder | undefined): string {
  return order === 'oldest' ? 'ORDER BY created_at ASC, id ASC' : 'ORDER BY created_at DESC, id DESC';
}

/** Runs a page query that fetched one row more than asked, to know whether another page exists. */
export function toPage<T extends { createdAt: string; id: number }>(rows: T[], size: number): Page<T> {
  const items = rows.slice(0, size);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > size && last ? encodeCursor(last) : null };
}
