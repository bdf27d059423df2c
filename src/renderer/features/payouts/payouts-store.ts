// The finance screens' state, kept live by main's pushes:
// - the payouts list: keyset pages of one query, loaded as the user scrolls; 'payouts:payout-changed'
//   updates a row in view in place, and a new payout that matches the query appears at the top.
//   Its total is asked for only once the first page is shown ('payouts:count'): on a big ledger
//   the count takes longer than the page, and the rows must not wait for it;
// - batches: the latest view of each batch ('batches:batch-changed' carries progress);
// - limits: the configured payout limits and today's usage ('limits:limits-changed').
import { createStore } from 'zustand/vanilla';
import type { BatchView, LimitsList, PayoutView, TransactionListInput } from '../../../shared/contract';
import { ContractError, type ApiClient } from '../../api/client';
import { matchesPayoutQuery, queryKey } from './filters';
import { errorMessage } from '../../../shared/error-message';

const PAGE_SIZE = 100;
const PUSH_BATCH_MS = 50;

export type PayoutQuery = Omit<TransactionListInput, 'cursor' | 'limit' | 'profileId'>;

export interface PayoutsState {
  list: {
    key: string | null;
    query: PayoutQuery;
    rows: PayoutView[];
    /** Rows matching the query (counted after the first page, plus payouts that arrived live since); null until counted. */
    total: number | null;
    /** The total is being counted (the rows are already shown). */
    counting: boolean;
    /** Why the total could not be counted (the rows are still shown). */
    countError: string | null;
    nextCursor: string | null;
    loading: boolean;
    error: string | null;
    errorFields: Record<string, string>;
  };
  showList(query: PayoutQuery): Promise<void>;
  refreshList(): Promise<void>;
  loadMore(): Promise<void>;

  batches: Record<number, BatchView>;
  /** Batch ids, newest first, as batches:list gave them (plus ones started here). */
  batchOrder: number[];
  batchesError: string | null;
  loadBatches(): Promise<void>;
  putBatch(view: BatchView): void;

  limits: LimitsList | null;
  limitsError: string | null;
  loadLimits(): Promise<void>;
}

const emptyList: PayoutsState['list'] = { key: null, query: {}, rows: [], total: null, counting: false, countError: null, nextCursor: null, loading: false, error: null, errorFields: {} };

const fields = (error: unknown) => (error instanceof ContractError ? error.fields : {});

export function createPayoutsStore(api: ApiClient) {
  // Each list load gets a generation; an answer for an older query is dropped.
  let generation = 0;

  const store = createStore<PayoutsState>()((set, get) => {
    const setList = (patch: Partial<PayoutsState['list']>) => set((state) => ({ list: { ...state.list, ...patch } }));
    const load = async (query: PayoutQuery) => {
      const mine = ++generation;
      set({ list: { ...emptyList, key: queryKey(query), query, loading: true } });
      try {
        const page = await api.invoke('payouts:list', { ...query, limit: PAGE_SIZE });
        if (mine !== generation) return;
        setList({ rows: page.items, nextCursor: page.nextCursor, loading: false, counting: true });
      } catch (error) {
        if (mine === generation) setList({ loading: false, error: errorMessage(error), errorFields: fields(error) });
        return;
      }
      try {
        const { sort: _order, ...filters } = query;
        const { total } = await api.invoke('payouts:count', filters);
        // Payouts that arrived live while counting are in the count already.
        if (mine === generation) setList({ total, counting: false });
      } catch (error) {
        if (mine === generation) setList({ counting: false, countError: errorMessage(error) });
      }
    };
    return {
      list: emptyList,
      async showList(query) {
        const { list } = get();
        if (list.key === queryKey(query) && list.error === null) return;
        await load(query);
      },
      async refreshList() {
        await load(get().list.query);
      },
      async loadMore() {
        const { nextCursor, loading, query } = get().list;
        if (nextCursor === null || loading) return;
        const mine = generation;
        setList({ loading: true });
        try {
          const page = await api.invoke('payouts:list', { ...query, cursor: nextCursor, limit: PAGE_SIZE });
          if (mine !== generation) return;
          const seen = new Set(get().list.rows.map((r) => r.id));
          setList({ rows: [...get().list.rows, ...page.items.filter((r) => !seen.has(r.id))], nextCursor: page.nextCursor, loading: false });
        } catch (error) {
          if (mine === generation) setList({ loading: false, error: errorMessage(error), errorFields: fields(error) });
        }
      },

      batches: {},
      batchOrder: [],
      batchesError: null,
      async loadBatches() {
        try {
          const page = await api.invoke('batches:list', { limit: 20 });
          set((state) => ({
            batches: { ...state.batches, ...Object.fromEntries(page.items.map((b) => [b.id, newer(state.batches[b.id], b)])) },
            batchOrder: page.items.map((b) => b.id),
            batchesError: null,
          }));
        } catch (error) {
          set({ batchesError: errorMessage(error) });
        }
      },
      putBatch(view) {
        if (view.state === 'draft') return;
        set((state) => ({
          batches: { ...state.batches, [view.id]: newer(state.batches[view.id], view) },
          batchOrder: state.batchOrder.includes(view.id) ? state.batchOrder : [view.id, ...state.batchOrder],
        }));
      },

      limits: null,
      limitsError: null,
      async loadLimits() {
        try {
          set({ limits: await api.invoke('limits:list'), limitsError: null });
        } catch (error) {
          set({ limitsError: errorMessage(error) });
        }
      },
    };
  });

  // Payout pushes come in bursts (a batch, a sweep): applied together, one render per burst.
  let pending = new Map<number, PayoutView>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = () => {
    timer = null;
    const changes = pending;
    pending = new Map();
    store.setState((state) => ({ list: applyChanges(state.list, changes) }));
  };
  api.on('payouts:payout-changed', (payout) => {
    pending.set(payout.id, payout);
    timer ??= setTimeout(flush, PUSH_BATCH_MS);
  });
  api.on('batches:batch-changed', (view) => store.getState().putBatch(view));
  api.on('limits:limits-changed', (limits) => store.setState({ limits, limitsError: null }));
  return store;
}

/** Pushes and answers can cross: keep the later view of a batch. */
function newer(current: BatchView | undefined, next: BatchView): BatchView {
  return current !== undefined && current.updatedAt > next.updatedAt ? current : next;
}

function applyChanges(list: PayoutsState['list'], changes: Map<number, PayoutView>): PayoutsState['list'] {
  if (list.key === null || list.error !== null || (list.loading && list.rows.length === 0)) return list;
  let rows: PayoutView[] | null = null;
  list.rows.forEach((row, i) => {
    const change = changes.get(row.id);
    if (change === undefined) return;
    changes.delete(row.id);
    if (change.updatedAt < row.updatedAt) return;
    rows ??= [...list.rows];
    rows[i] = change;
  });
  const oldestFirst = list.query.sort === 'oldest';
  const newest = oldestFirst ? list.rows.at(-1) : list.rows[0];
  const fresh = [...changes.values()]
    .filter((p) => newest === undefined || p.createdAt > newest.createdAt || (p.createdAt === newest.createdAt && p.id > newest.id))
    .filter((p) => matchesPayoutQuery(list.query, p))
    .sort((a, b) => (a.createdAt === b.createdAt ? b.id - a.id : a.createdAt < b.createdAt ? 1 : -1));
  const base = rows ?? list.rows;
  if (fresh.length === 0) return rows === null ? list : { ...list, rows };
  // Oldest first, a new payout belongs after the last row: only once the end is loaded is that
  // in view; before, paging reaches it (and the count will include it).
  if (oldestFirst && list.nextCursor !== null) return { ...list, rows: base };
  const total = list.total === null ? null : list.total + fresh.length;
  return { ...list, rows: oldestFirst ? [...base, ...fresh.reverse()] : [...fresh, ...base], total };
}

export type PayoutsStore = ReturnType<typeof createPayoutsStore>;
