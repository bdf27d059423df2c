// The pay-ins and payouts lists: one keyset list store each, over the same query, rules and order;
// only their channels differ. 'payins:payin-changed' / 'payouts:payout-changed' keep them live.
import type { PayinView, PayoutView, TransactionSubject } from '../../../shared/contract';
import type { ApiClient } from '../../api/client';
import { createKeysetListStore, type KeysetListSpec, type KeysetListStore } from '../../stores/keyset-list';
import { compareRows, isVolatile, matchesQuery, type TransactionQuery } from './list-query';

const PAGE_SIZE = 100;

/** The count takes the filters only: no order, size or position. */
const filtersOf = ({ sort: _order, ...filters }: TransactionQuery) => filters;

function transactionSpec<Row extends PayinView | PayoutView>(io: Pick<KeysetListSpec<TransactionQuery, Row>, 'list' | 'count' | 'push'>): KeysetListSpec<TransactionQuery, Row> {
  return {
    ...io,
    matches: matchesQuery,
    key: (row) => row.id,
    compare: compareRows,
    fresher: (next, held) => next.updatedAt >= held.updatedAt,
    volatile: isVolatile,
    newestFirst: (query) => query.sort !== 'oldest',
  };
}

export function createPayinsListStore(api: ApiClient) {
  return createKeysetListStore(
    transactionSpec<PayinView>({
      list: async (query, cursor) => {
        const page = await api.invoke('payins:list', { ...query, ...(cursor === null ? {} : { cursor }), limit: PAGE_SIZE });
        return { items: page.items, next: page.nextCursor };
      },
      count: async (query) => (await api.invoke('payins:count', filtersOf(query))).total,
      push: (listener) => api.on('payins:payin-changed', listener),
    }),
  );
}

export function createPayoutsListStore(api: ApiClient) {
  return createKeysetListStore(
    transactionSpec<PayoutView>({
      list: async (query, cursor) => {
        const page = await api.invoke('payouts:list', { ...query, ...(cursor === null ? {} : { cursor }), limit: PAGE_SIZE });
        return { items: page.items, next: page.nextCursor };
      },
      count: async (query) => (await api.invoke('payouts:count', filtersOf(query))).total,
      push: (listener) => api.on('payouts:payout-changed', listener),
    }),
  );
}

export type PayinsListStore = KeysetListStore<TransactionQuery, PayinView>;
export type PayoutsListStore = KeysetListStore<TransactionQuery, PayoutView>;
export type TransactionListStore<S extends TransactionSubject> = S extends 'payin' ? PayinsListStore : PayoutsListStore;
