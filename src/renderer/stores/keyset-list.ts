// One keyset list, whatever it lists: pages of one query loaded as the user scrolls (never
// everything), its total asked for once the first page is shown (on a big ledger the count takes
// longer than the page, and the rows must not wait for it), and live changes applied in batches
// (a sweep re-reading thousands of rows costs one render per batch, not one per row) under the
// query's own filter:
//   - a loaded row that changed is replaced in place, or leaves when it no longer matches;
//   - a row not loaded that matches joins at its place in the order, when that place is within
//     the loaded rows (after the last loaded row, paging brings it);
//   - the total moves with them. A change past the loaded rows cannot tell whether the row
//     matched before, so when it may have moved the total the total is counted again (throttled).
// Pay-ins, payouts and the reconciliation exception lists use it; the cursor and the row are
// parameters, so a list paged by id (the webhook inspector's) fits as well.
import { createStore } from 'zustand/vanilla';
import { ContractError } from '../api/client';
import { errorMessage } from '../../shared/error-message';

export interface KeysetPage<Row, Cursor> {
  items: Row[];
  /** The cursor of the next page; null on the last page. */
  next: Cursor | null;
  /** The query's total when the first page carries it (lists without a separate count). */
  total?: number | null;
}

export interface KeysetListSpec<Query, Row, Cursor = string> {
  /** One page of the query, after the cursor (null: the first page). */
  list(query: Query, cursor: Cursor | null): Promise<KeysetPage<Row, Cursor>>;
  /** How many rows match the query; asked once the first page is shown. Without it the first page's total is the list's. */
  count?(query: Query): Promise<number>;
  /** Subscribes to live changes of rows; returns the unsubscribe. */
  push?(listener: (row: Row) => void): () => void;
  /** Whether a row belongs in the list under the query: the rules main applies, so a row is shown where a reload would show it. */
  matches(query: Query, row: Row): boolean;
  /** A row's identity. */
  key(row: Row): string | number;
  /** The list's order under the query: negative when a comes before b. */
  compare(query: Query, a: Row, b: Row): number;
  /** Of two versions of a row, whether `next` may replace `held` (a page loaded after a push can be fresher); default yes. */
  fresher?(next: Row, held: Row): boolean;
  /** Whether a row's membership can change after it is created (a status filter: yes; a method filter: no); default yes. */
  volatile?(query: Query): boolean;
  /** Whether new rows come first in the order (newest first); default yes. */
  newestFirst?(query: Query): boolean;
}

export interface KeysetListState<Query, Row, Cursor = string> {
  /** queryKey of the query shown; null before the first load. */
  key: string | null;
  query: Query | null;
  rows: Row[];
  /** Rows matching the query (counted, then moved by live changes); null until counted. */
  total: number | null;
  /** The total is being counted (the rows are already shown). */
  counting: boolean;
  /** Why the total could not be counted (the rows are still shown). */
  countError: string | null;
  nextCursor: Cursor | null;
  loading: boolean;
  error: string | null;
  errorFields: Record<string, string>;
  /** Rows that joined the list live since the query was loaded. */
  arrived: number;
  /** Loads the first page of this query, unless it is already shown. */
  show(query: Query): Promise<void>;
  refresh(): Promise<void>;
  loadMore(): Promise<void>;
  /** Applies a row the user just produced (a replay, say) at once, like a push. */
  put(row: Row): void;
}

/** Milliseconds over which pushes are gathered into one update. */
export const PUSH_BATCH_MS = 50;
/** A recount waits this long after the previous one, so a flood of changes costs one count every so often. */
export const RECOUNT_INTERVAL_MS = 2_000;
/** Changes past the loaded rows remembered for the pages still to come (bounded). */
const RECENT_CHANGES = 1_000;
/** One object for "no field errors": a memoised filter bar receives it and must not re-render for a new {}. */
const NO_FIELD_ERRORS: Record<string, string> = {};

/** A stable key for a query: the same filters in any order (lists in any order too) give the same key. */
export function queryKey(query: object): string {
  const entries = Object.entries(query)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, Array.isArray(v) ? [...(v as unknown[])].map(String).sort() : v] as const)
    .sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify(entries);
}

type Data<Query, Row, Cursor> = Omit<KeysetListState<Query, Row, Cursor>, 'show' | 'refresh' | 'loadMore' | 'put'>;

export function createKeysetListStore<Query extends object, Row, Cursor = string>(spec: KeysetListSpec<Query, Row, Cursor>) {
  const empty: Data<Query, Row, Cursor> = {
    key: null,
    query: null,
    rows: [],
    total: null,
    counting: false,
    countError: null,
    nextCursor: null,
    loading: false,
    error: null,
    errorFields: NO_FIELD_ERRORS,
    arrived: 0,
  };
  // Each load gets a generation; an answer for an older one (the query changed meanwhile) is dropped.
  let generation = 0;
  // Changes that landed past the loaded rows: a page loaded later may be older than them.
  let recent = new Map<string | number, Row>();
  const failure = (error: unknown) => ({ error: errorMessage(error), errorFields: error instanceof ContractError ? error.fields : NO_FIELD_ERRORS });

  const store = createStore<KeysetListState<Query, Row, Cursor>>()((set, get) => {
    const load = async (query: Query) => {
      const mine = ++generation;
      recent = new Map();
      recount.cancel();
      set({ ...empty, key: queryKey(query), query, loading: true });
      let first: KeysetPage<Row, Cursor>;
      try {
        first = await spec.list(query, null);
        if (mine !== generation) return;
        set({ rows: first.items, nextCursor: first.next, loading: false, total: spec.count ? null : (first.total ?? null), counting: spec.count !== undefined });
      } catch (error) {
        if (mine === generation) set({ loading: false, ...failure(error) });
        return;
      }
      if (!spec.count) return;
      try {
        const total = await spec.count(query);
        // Rows that arrived live while counting are in the count already (it is the ledger's answer when it ran).
        if (mine === generation) set({ total, counting: false });
      } catch (error) {
        if (mine === generation) set({ counting: false, countError: errorMessage(error) });
      }
    };
    return {
      ...empty,
      async show(query) {
        if (get().key === queryKey(query) && get().error === null) return;
        await load(query);
      },
      async refresh() {
        const { query } = get();
        if (query !== null) await load(query);
      },
      async loadMore() {
        const { nextCursor, loading, query } = get();
        if (nextCursor === null || loading || query === null) return;
        const mine = generation;
        set({ loading: true });
        try {
          const page = await spec.list(query, nextCursor);
          if (mine !== generation) return;
          set((state) => {
            const seen = new Set(state.rows.map(spec.key));
            const items = page.items.flatMap((row) => {
              const key = spec.key(row);
              if (seen.has(key)) return [];
              // A change pushed while this page was on its way is fresher than the page.
              const later = recent.get(key);
              const current = later !== undefined && fresher(later, row) ? later : row;
              return spec.matches(query, current) ? [current] : [];
            });
            return { rows: [...state.rows, ...items], nextCursor: page.next, loading: false };
          });
        } catch (error) {
          if (mine === generation) set({ loading: false, ...failure(error) });
        }
      },
      put(row) {
        pending.set(spec.key(row), row);
        if (timer !== null) clearTimeout(timer);
        flush();
      },
    };
  });

  const fresher = (next: Row, held: Row) => spec.fresher?.(next, held) ?? true;

  /** Counts the total again, one count at a time and at most one per RECOUNT_INTERVAL_MS. */
  const recount = (() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    let running = false;
    let again = false;
    const run = async () => {
      timer = null;
      const { query, total } = store.getState();
      if (!spec.count || query === null || total === null) return;
      const mine = generation;
      running = true;
      try {
        const counted = await spec.count(query);
        if (mine === generation) store.setState({ total: counted, countError: null });
      } catch (error) {
        if (mine === generation) store.setState({ countError: errorMessage(error) });
      } finally {
        running = false;
        const rerun = again && mine === generation;
        again = false;
        if (rerun) timer = setTimeout(() => void run(), RECOUNT_INTERVAL_MS);
      }
    };
    return {
      soon() {
        if (running) again = true;
        else timer ??= setTimeout(() => void run(), RECOUNT_INTERVAL_MS);
      },
      cancel() {
        if (timer !== null) clearTimeout(timer);
        timer = null;
        again = false;
      },
    };
  })();

  const apply = (changes: Row[]) => {
    let uncertain = false;
    store.setState((state) => {
      const result = applyChanges(spec, state, changes);
      uncertain = result.uncertain;
      for (const row of result.beyond) {
        recent.delete(spec.key(row));
        recent.set(spec.key(row), row);
        if (recent.size > RECENT_CHANGES) recent.delete(recent.keys().next().value as string | number);
      }
      return result.patch;
    });
    if (uncertain) recount.soon();
  };

  let pending = new Map<string | number, Row>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = () => {
    timer = null;
    // While a query's first page is loading there is nothing to apply the changes to yet: keep them.
    const { loading, rows } = store.getState();
    if (loading && rows.length === 0) {
      timer = setTimeout(flush, PUSH_BATCH_MS);
      return;
    }
    const changes = [...pending.values()];
    pending = new Map();
    apply(changes);
  };
  const unsubscribe = spec.push?.((row) => {
    pending.set(spec.key(row), row);
    timer ??= setTimeout(flush, PUSH_BATCH_MS);
  });

  /** Stops listening (a list that lives as long as one screen). */
  const dispose = () => {
    unsubscribe?.();
    if (timer !== null) clearTimeout(timer);
    recount.cancel();
    generation++;
  };
  return Object.assign(store, { dispose });
}

export type KeysetListStore<Query extends object, Row, Cursor = string> = ReturnType<typeof createKeysetListStore<Query, Row, Cursor>>;

interface Applied<Query, Row, Cursor> {
  patch: Partial<KeysetListState<Query, Row, Cursor>>;
  /** Changes past the loaded rows (left to paging). */
  beyond: Row[];
  /** Whether one of them may have moved the total. */
  uncertain: boolean;
}

/** The live changes applied to the list under its query (see the top of this file). */
export function applyChanges<Query extends object, Row, Cursor>(
  spec: KeysetListSpec<Query, Row, Cursor>,
  state: Data<Query, Row, Cursor>,
  changes: readonly Row[],
): Applied<Query, Row, Cursor> {
  const { query } = state;
  if (query === null || state.key === null || state.error !== null || changes.length === 0) return { patch: {}, beyond: [], uncertain: false };
  const byKey = new Map(changes.map((row) => [spec.key(row), row]));
  let moved = false;
  let delta = 0;
  const kept: Row[] = [];
  for (const row of state.rows) {
    const key = spec.key(row);
    const change = byKey.get(key);
    if (change === undefined) {
      kept.push(row);
      continue;
    }
    byKey.delete(key);
    if (!(spec.fresher?.(change, row) ?? true)) {
      kept.push(row);
      continue;
    }
    moved = true;
    if (spec.matches(query, change)) kept.push(change);
    else delta -= 1;
  }

  // The last loaded row bounds the range the list knows; past it, paging brings the rows.
  const boundary = state.rows.at(-1);
  const volatile = spec.volatile?.(query) ?? true;
  const newestFirst = spec.newestFirst?.(query) ?? true;
  const joining: Row[] = [];
  const beyond: Row[] = [];
  let uncertain = false;
  for (const change of byKey.values()) {
    const matches = spec.matches(query, change);
    const inRange = state.nextCursor === null || (boundary !== undefined && spec.compare(query, change, boundary) < 0);
    if (inRange) {
      // Not loaded though within the range: it did not match before (or is new), so it joins if it matches now.
      if (matches) joining.push(change);
      continue;
    }
    beyond.push(change);
    // Past the loaded rows an existing row's membership changes only under a volatile filter; a
    // new row lands there only when new rows come last.
    if (volatile || (!newestFirst && matches)) uncertain = true;
  }
  if (!moved && joining.length === 0) return { patch: {}, beyond, uncertain };

  joining.sort((a, b) => spec.compare(query, a, b));
  const rows = joining.length === 0 ? kept : merge(kept, joining, (a, b) => spec.compare(query, a, b));
  delta += joining.length;
  const total = state.total === null ? null : Math.max(0, state.total + delta);
  return { patch: { rows, total, arrived: state.arrived + joining.length }, beyond, uncertain };
}

/** Two lists already in order, merged in order. */
function merge<Row>(a: readonly Row[], b: readonly Row[], compare: (x: Row, y: Row) => number): Row[] {
  const out: Row[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(compare(b[j] as Row, a[i] as Row) < 0 ? (b[j++] as Row) : (a[i++] as Row));
  while (i < a.length) out.push(a[i++] as Row);
  while (j < b.length) out.push(b[j++] as Row);
  return out;
}
