// Keyset pagination, the one page shape and the one cursor codec of every paged query. A cursor
// names the last row of a page by the values of the columns the list is ordered by (its
// position), so rows inserted meanwhile never shift later pages (no duplicates, no skips), and
// every page costs one index range scan however deep the user scrolls (OFFSET would rescan all
// earlier rows). Most lists are ordered by (created_at, id), newest first or oldest first.
import { isoTime } from '../support';
import type { SqlValue } from '../engine/types';
import { InvalidCursorError } from '../../invalid-cursor';

export interface PageRequest {
  /** 1–500, default 50. */
  limit?: number;
  /** nextCursor of the previous page; absent for the first page. */
  cursor?: string | null;
  /** Default newest first. Either way one index range scan: SQLite walks the same index backwards. */
  order?: PageOrder;
}

export type PageOrder = 'newest' | 'oldest';

/** What every paged query returns. */
export interface Page<T> {
  items: T[];
  /** Pass back to get the next page (older, or newer when oldest first); null on the last page. */
  nextCursor: string | null;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

/** Where a page ends: the values of the list's order columns at its last row. */
export type Position = readonly (string | number)[];
type PartKind = 'string' | 'number';
type PartOf<K extends PartKind> = K extends 'string' ? string : number;
type PositionOf<S extends readonly PartKind[]> = { -readonly [I in keyof S]: PartOf<S[I]> };

export function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/** The position a cursor names, checked against the list's shape; an InvalidCursorError for anything else. */
export function decodeCursor<const S extends readonly PartKind[]>(cursor: string, shape: S): PositionOf<S> {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === shape.length &&
      shape.every((kind, i) => (kind === 'number' ? Number.isSafeInteger(value[i]) : typeof value[i] === 'string'))
    ) {
      return value as PositionOf<S>;
    }
  } catch {
    // fall through to the one error below
  }
  throw new InvalidCursorError();
}

/** `limit` rows after the cursor's (none: the first page), for the lists with an order of their own. */
export interface PageAfter {
  cursor?: string | null | undefined;
  limit: number;
}

/** The number a cursor of a list ordered by one number names; null for the first page. */
export function cursorNumber(cursor: string | null | undefined): number | null {
  return cursor ? decodeCursor(cursor, ['number'])[0] : null;
}

/** The (created_at, id) position of the lists ordered by creation. */
function decodeCreatedCursor(cursor: string): { createdAt: string; id: number } {
  const [createdAt, id] = decodeCursor(cursor, ['string', 'number']);
  try {
    return { createdAt: isoTime(createdAt), id };
  } catch {
    throw new RangeError('invalid page cursor');
  }
}

export function pageSize(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError('page limit must be a positive integer');
  return Math.min(limit, MAX_PAGE_SIZE);
}

/** WHERE terms collected with their parameters; column names come from code, never from input. */
export class Conditions {
  readonly terms: string[] = [];
  readonly params: SqlValue[] = [];

  add(term: string, ...params: SqlValue[]): this {
    this.terms.push(term);
    this.params.push(...params);
    return this;
  }

  /** An empty list means "no filter" (a multi-select with nothing picked). */
  oneOf(column: string, values: readonly SqlValue[] | undefined): this {
    if (values && values.length > 0) this.add(`${column} IN (${placeholders(values)})`, ...values);
    return this;
  }

  /** Rows after the cursor of a list ordered by (created_at, id). */
  after(request: PageRequest): this {
    if (request.cursor) {
      const position = decodeCreatedCursor(request.cursor);
      this.add(`(created_at, id) ${request.order === 'oldest' ? '>' : '<'} (?, ?)`, position.createdAt, position.id);
    }
    return this;
  }

  sql(): string {
    return this.terms.length > 0 ? `WHERE ${this.terms.join(' AND ')}` : '';
  }
}

/** One `?` per value, for an IN list. */
export function placeholders(values: readonly unknown[]): string {
  return values.map(() => '?').join(', ');
}

/** The ORDER BY of a page in this order (the cursor's columns). */
export function pageOrderBy(order: PageOrder | undefined): string {
  return order === 'oldest' ? 'ORDER BY created_at ASC, id ASC' : 'ORDER BY created_at DESC, id DESC';
}

/**
 * The page of a query that fetched one row more than `size`, to know whether another page
 * follows; its cursor is the position of the last row kept.
 */
export function toPage<T>(rows: T[], size: number, positionOf: (row: T) => Position): Page<T> {
  const items = rows.slice(0, size);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > size && last !== undefined ? encodeCursor(positionOf(last)) : null };
}

/** The position of a row in a list ordered by (created_at, id). */
export const createdPosition = (row: { createdAt: string; id: number }): Position => [row.createdAt, row.id];
