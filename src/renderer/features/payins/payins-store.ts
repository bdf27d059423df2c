// The pay-ins list: keyset pages of one query, loaded as the user scrolls (never everything), and
// kept live by 'payins:payin-changed' — a row in view is updated in place, a new pay-in that
// matches the filters appears at the top. Pushes are applied in batches, so a sweep re-reading
// thousands of rows costs one render per batch, not one per row.
// The total is asked for only once the first page is shown ('payins:count'): on a million-row
// ledger the count takes longer than the page, and the rows must not wait for it.
import { createStore } from 'zustand/vanilla';
import type { PayinView, SavedViewFilters } from '../../../shared/contract';
import { ContractError, type ApiClient } from '../../api/client';
import { queryKey } from './filters';
import { matchesQuery } from './matches';
import { errorMessage } from '../../../shared/error-message';

const PAGE_SIZE = 100;
const PUSH_BATCH_MS = 50;
/** One object for "no field errors": the memoised filter bar receives it and must not re-render for a new {}. */
const NO_FIELD_ERRORS: Record<string, string> = {};

export interface PayinsListState {
  /** queryKey of the query shown; null before the first load. */
  key: string | null;
  query: SavedViewFilters;
  rows: PayinView[];
  /** Rows matching the query (counted after the first page, plus pay-ins that arrived live since); null until counted. */
  total: number | null;
  /** The total is being counted (the rows are already shown). */
  counting: boolean;
  /** Why the total could not be counted (the rows are still shown). */
  countError: string | null;
  nextCursor: string | null;
  loading: boolean;
  error: string | null;
  errorFields: Record<string, string>;
  /** Pay-ins that appeared live since the query was loaded. */
  arrived: number;
  /** Loads the first page of this query, unless it is already shown. */
  show(query: SavedViewFilters): Promise<void>;
  refresh(): Promise<void>;
  loadMore(): Promise<void>;
}

/** The list before a query is loaded, and again at the start of each load. */
const EMPTY_LIST: Omit<PayinsListState, 'show' | 'refresh' | 'loadMore'> = {
  key: null,
  query: {},
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

export function createPayinsListStore(api: ApiClient) {
  // Each load gets a generation; an answer for an older one (filters changed meanwhile) is dropped.
  let generation = 0;

  const store = createStore<PayinsListState>()((set, get) => {
    const load = async (query: SavedViewFilters) => {
      const mine = ++generation;
      set({ ...EMPTY_LIST, key: queryKey(query), query, loading: true });
      try {
        const page = await api.invoke('payins:list', { ...query, limit: PAGE_SIZE });
        if (mine !== generation) return;
        set({ rows: page.items, nextCursor: page.nextCursor, loading: false, counting: true });
      } catch (error) {
        if (mine === generation) set({ loading: false, ...failure(error) });
        return;
      }
      try {
        const { sort: _order, ...filters } = query;
        const { total } = await api.invoke('payins:count', filters);
        // Pay-ins that arrived live while counting are in the count already (or close enough: the
        // count is the ledger's answer at the time it ran).
        if (mine === generation) set({ total, counting: false });
      } catch (error) {
        if (mine === generation) set({ counting: false, countError: errorMessage(error) });
      }
    };
    return {
      ...EMPTY_LIST,
      async show(query) {
        if (get().key === queryKey(query) && get().error === null) return;
        await load(query);
      },
      async refresh() {
        await load(get().query);
      },
      async loadMore() {
        const { nextCursor, loading, query } = get();
        if (nextCursor === null || loading) return;
        const mine = generation;
        set({ loading: true });
        try {
          const page = await api.invoke('payins:list', { ...query, cursor: nextCursor, limit: PAGE_SIZE });
          if (mine !== generation) return;
          set((state) => {
            // A pay-in that arrived live is newer than every page: never in a later page, but be safe.
            const seen = new Set(state.rows.map((r) => r.id));
            return { rows: [...state.rows, ...page.items.filter((r) => !seen.has(r.id))], nextCursor: page.nextCursor, loading: false };
          });
        } catch (error) {
          if (mine === generation) set({ loading: false, ...failure(error) });
        }
      },
    };
  });

  let pending = new Map<number, PayinView>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = () => {
    timer = null;
    // While a query's first page is loading there is nothing to update yet: keep the changes.
    if (store.getState().loading && store.getState().rows.length === 0) {
      timer = setTimeout(flush, PUSH_BATCH_MS);
      return;
    }
    const changes = pending;
    pending = new Map();
    store.setState((state) => applyChanges(state, changes));
  };
  api.on('payins:payin-changed', (payin) => {
    pending.set(payin.id, payin);
    timer ??= setTimeout(flush, PUSH_BATCH_MS);
  });
  return store;
}

function failure(error: unknown): Pick<PayinsListState, 'error' | 'errorFields'> {
  return { error: errorMessage(error), errorFields: error instanceof ContractError ? error.fields : NO_FIELD_ERRORS };
}

/** Rows in view are replaced in place; a pay-in newer than every loaded row that matches the query joins at the top (newest first) or the end (oldest first, once the end is loaded). */
function applyChanges(state: PayinsListState, changes: Map<number, PayinView>): Partial<PayinsListState> {
  if (state.key === null || state.error !== null) return {};
  let rows: PayinView[] | null = null;
  const fresh: PayinView[] = [];
  state.rows.forEach((row, i) => {
    const change = changes.get(row.id);
    if (change === undefined) return;
    changes.delete(row.id);
    if (change.updatedAt < row.updatedAt) return; // a page loaded after this push is fresher
    rows ??= [...state.rows];
    rows[i] = change;
  });
  const newest = state.query.sort === 'oldest' ? state.rows.at(-1) : state.rows[0];
  for (const payin of changes.values()) {
    // Older than what is loaded: it lives in a page not loaded yet, which will bring it fresh.
    const isNew = newest === undefined || payin.createdAt > newest.createdAt || (payin.createdAt === newest.createdAt && payin.id > newest.id);
    if (isNew && matchesQuery(state.query, payin)) fresh.push(payin);
  }
  if (fresh.length === 0) return rows === null ? {} : { rows };
  fresh.sort((a, b) => (a.createdAt === b.createdAt ? b.id - a.id : a.createdAt < b.createdAt ? 1 : -1));
  const base: PayinView[] = rows ?? state.rows;
  const total = state.total === null ? null : state.total + fresh.length;
  if (state.query.sort === 'oldest') {
    // Only once the end is loaded can "later than the last row" mean new; otherwise paging reaches it.
    return state.nextCursor === null ? { rows: [...base, ...fresh.reverse()], total, arrived: state.arrived + fresh.length } : { rows: base };
  }
  return { rows: [...fresh, ...base], total, arrived: state.arrived + fresh.length };
}

export type PayinsListStore = ReturnType<typeof createPayinsListStore>;
