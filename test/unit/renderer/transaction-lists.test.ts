// The pay-ins and payouts lists: one keyset list store (src/renderer/stores/keyset-list.ts) over
// each domain's channels, so every behaviour below is proved for both. Pages by cursor, the total
// counted once the first page is shown, and live changes applied under the list's filter: a row
// that stops matching leaves, one that starts matching joins at its place, the total moves.
import { afterEach, describe, expect, it, vi } from 'vitest';
// The renderer's global Window.paydesk declaration, which the api client's types rely on.
import type {} from '../../../src/renderer/env';
import type { PayinView, PayoutView, PushChannel } from '../../../src/shared/contract';
import type { ApiClient } from '../../../src/renderer/api/client';
import { fakeListApi, gate, payinView, payoutView, settle, type Page } from './list-store-fakes';
import { createPayinsListStore, createPayoutsListStore } from '../../../src/renderer/features/transactions/transaction-list-store';
import { RECOUNT_INTERVAL_MS, type KeysetListStore } from '../../../src/renderer/stores/keyset-list';
import type { TransactionQuery } from '../../../src/renderer/features/transactions/list-query';

type Row = PayinView | PayoutView;
type Input = Record<string, unknown>;

// Payouts here take the pay-ins' method and status codes: the stores never check codes against
// a catalogue, and the same filters then apply to both.
const payin = payinView;
const payout = (over: Partial<PayoutView>) => payoutView({ method: 'blik', currency: 'PLN', statusCode: '100', ...over });

const domains = [
  { name: 'pay-ins', channels: { list: 'payins:list', count: 'payins:count', push: 'payins:payin-changed' as PushChannel }, create: createPayinsListStore, row: payin as (over: Partial<Row>) => Row },
  { name: 'payouts', channels: { list: 'payouts:list', count: 'payouts:count', push: 'payouts:payout-changed' as PushChannel }, create: createPayoutsListStore, row: payout as (over: Partial<Row>) => Row },
];

/** Created at 10:00 plus `minutes`: a bigger id is a newer row. */
const at = (minutes: number) => new Date(Date.UTC(2026, 2, 1, 10, minutes)).toISOString();

afterEach(() => vi.useRealTimers());

describe.each(domains)('the $name list store', ({ channels, create, row }) => {
  const fakeApi = (list: (input: Input) => Page<Row> | Promise<Page<Row>>, count: (input: Input) => number | Promise<number> = () => 1) => fakeListApi<Row>(channels, list, count);
  // Either domain's store, typed over both domains' rows.
  const open = (api: ApiClient) => create(api) as unknown as KeysetListStore<TransactionQuery, Row>;
  const ids = (store: ReturnType<typeof open>) => store.getState().rows.map((r) => r.id);

  describe('pages and live rows', () => {
    it('pages with the cursor, updates rows in place and puts a matching new row on top', async () => {
      const older = row({ id: 1, createdAt: at(0) });
      const newer = row({ id: 2, createdAt: at(1) });
      const { api, push } = fakeApi(
        (input) => (input.cursor ? { items: [older], nextCursor: null } : { items: [newer], nextCursor: 'c1' }),
        () => 2,
      );
      const store = open(api);
      await store.getState().show({ methods: ['blik'] });
      await store.getState().loadMore();
      expect(ids(store)).toEqual([2, 1]);

      push(row({ id: 1, createdAt: older.createdAt, statusCode: '200', updatedAt: at(5) }));
      push(row({ id: 3, createdAt: at(10) }));
      push(row({ id: 4, createdAt: at(11), method: 'crypto' })); // filtered out
      await settle();
      expect(store.getState().rows.map((r) => [r.id, r.statusCode])).toEqual([
        [3, '100'],
        [2, '100'],
        [1, '200'],
      ]);
      expect(store.getState()).toMatchObject({ total: 3, arrived: 1 });
    });

    it('never lets an older push overwrite a fresher page, and drops answers to a query no longer shown', async () => {
      const fresh = row({ id: 1, statusCode: '200', updatedAt: at(5) });
      const { api, push } = fakeApi(() => ({ items: [fresh], nextCursor: null }));
      const store = open(api);
      await store.getState().show({});
      push(row({ id: 1, statusCode: '100', updatedAt: at(0) }));
      await settle();
      expect(store.getState().rows[0]?.statusCode).toBe('200');

      const slow = gate<void>();
      const gated = fakeApi(async (input) => {
        if (input.methods) await slow.promise;
        return { items: [row({ id: input.methods ? 9 : 1 })], nextCursor: null };
      });
      const racing = open(gated.api);
      const first = racing.getState().show({ methods: ['blik'] });
      await racing.getState().show({});
      slow.open();
      await first;
      expect(ids(racing)).toEqual([1]);
    });

    it('keeps a change pushed while the first page loads and applies it to that page (the payouts store dropped it)', async () => {
      const page = gate<Page<Row>>();
      const { api, push } = fakeApi(() => page.promise);
      const store = open(api);
      const shown = store.getState().show({});
      await settle();
      // The page was read before the status moved; the push says so.
      push(row({ id: 1, statusCode: '200', updatedAt: at(5) }));
      await settle();
      page.open({ items: [row({ id: 1, statusCode: '100', updatedAt: at(0) })], nextCursor: null });
      await shown;
      await settle();
      expect(store.getState().rows.map((r) => [r.id, r.statusCode])).toEqual([[1, '200']]);
    });

    it('puts a row the user just produced at once, without waiting for its push', async () => {
      const { api } = fakeApi(() => ({ items: [row({ id: 1 })], nextCursor: null }));
      const store = open(api);
      await store.getState().show({});
      store.getState().put(row({ id: 2, createdAt: at(3) }));
      expect(ids(store)).toEqual([2, 1]);
    });
  });

  describe('the total', () => {
    it('shows the first page without waiting for its total, and asks for the count only once the page is in', async () => {
      const page = gate<Page<Row>>();
      const counted = gate<number>();
      const { api, calls } = fakeApi(
        () => page.promise,
        () => counted.promise,
      );
      const store = open(api);
      const shown = store.getState().show({ methods: ['blik'], sort: 'oldest' });
      await settle();
      expect(calls.map((c) => c.channel)).toEqual([channels.list]); // no count competes with the page
      expect(store.getState()).toMatchObject({ loading: true, total: null });

      page.open({ items: [row({ id: 7 })], nextCursor: 'c1' });
      await settle();
      expect(store.getState()).toMatchObject({ loading: false, counting: true, total: null });
      expect(ids(store)).toEqual([7]);
      // The count takes the filters only: no order, size or position.
      expect(calls.map((c) => [c.channel, c.input])).toEqual([
        [channels.list, { methods: ['blik'], sort: 'oldest', limit: 100 }],
        [channels.count, { methods: ['blik'] }],
      ]);

      counted.open(1_000_000);
      await shown;
      expect(store.getState()).toMatchObject({ counting: false, total: 1_000_000, countError: null });
    });

    it('keeps the rows when the count fails, and says why', async () => {
      const { api } = fakeApi(
        () => ({ items: [row({ id: 7 })], nextCursor: null }),
        () => Promise.reject(new Error('main is busy')),
      );
      const store = open(api);
      await store.getState().show({});
      expect(store.getState()).toMatchObject({ counting: false, total: null, countError: 'main is busy', error: null });
      expect(ids(store)).toEqual([7]);
    });

    it('drops the count of a query no longer shown', async () => {
      const counted = gate<number>();
      const { api } = fakeApi(
        (input) => ({ items: [row({ id: input.methods ? 9 : 1 })], nextCursor: null }),
        (input) => (input.methods ? counted.promise : 5),
      );
      const store = open(api);
      const first = store.getState().show({ methods: ['blik'] });
      await settle();
      await store.getState().show({});
      counted.open(42);
      await first;
      expect(store.getState()).toMatchObject({ total: 5 });
      expect(ids(store)).toEqual([1]);
    });

    it('adds rows that arrive live to a counted total only', async () => {
      const counted = gate<number>();
      const { api, push } = fakeApi(
        () => ({ items: [row({ id: 1 })], nextCursor: null }),
        () => counted.promise,
      );
      const store = open(api);
      const shown = store.getState().show({});
      await settle();
      push(row({ id: 2, createdAt: at(2) }));
      await settle();
      expect(store.getState()).toMatchObject({ total: null, arrived: 1 }); // the count will include it
      expect(ids(store)).toEqual([2, 1]);
      counted.open(2);
      await shown;
      push(row({ id: 3, createdAt: at(3) }));
      await settle();
      expect(store.getState()).toMatchObject({ total: 3, arrived: 2 });
    });
  });

  describe('live changes under the list filter', () => {
    const pending = (id: number, over: Partial<Row> = {}) => row({ id, createdAt: at(id), statusCode: '100', ...over });

    it('lets a row that no longer matches leave, with the total', async () => {
      const { api, push } = fakeApi(
        () => ({ items: [pending(3), pending(2), pending(1)], nextCursor: null }),
        () => 3,
      );
      const store = open(api);
      await store.getState().show({ statusCodes: ['100'] });
      push(pending(2, { statusCode: '200', updatedAt: at(30) }));
      await settle();
      expect(ids(store)).toEqual([3, 1]);
      expect(store.getState().total).toBe(2);
    });

    it('lets a row that starts matching join at its place in the order, with the total', async () => {
      // Loaded: 9, 5, 2 of a status-100 list that has more pages; 4 and 7 become 100 now.
      const { api, push } = fakeApi(
        () => ({ items: [pending(9), pending(5), pending(2)], nextCursor: 'c1' }),
        () => 10,
      );
      const store = open(api);
      await store.getState().show({ statusCodes: ['100'] });
      push(pending(4, { updatedAt: at(40) }));
      push(pending(7, { updatedAt: at(40) }));
      await settle();
      expect(ids(store)).toEqual([9, 7, 5, 4, 2]);
      expect(store.getState()).toMatchObject({ total: 12, arrived: 2 });

      // Oldest first, the same rows join in the other order.
      const oldest = fakeApi(
        () => ({ items: [pending(2), pending(5), pending(9)], nextCursor: 'c1' }),
        () => 10,
      );
      const ascending = open(oldest.api);
      await ascending.getState().show({ statusCodes: ['100'], sort: 'oldest' });
      oldest.push(pending(7, { updatedAt: at(40) }));
      oldest.push(pending(4, { updatedAt: at(40) }));
      await settle();
      expect(ids(ascending)).toEqual([2, 4, 5, 7, 9]);
      expect(ascending.getState().total).toBe(12);
    });

    it('leaves a row that does not match out, wherever it sorts', async () => {
      const { api, push, calls } = fakeApi(
        () => ({ items: [pending(9), pending(5)], nextCursor: null }),
        () => 2,
      );
      const store = open(api);
      await store.getState().show({ statusCodes: ['100'] });
      push(pending(7, { statusCode: '302' }));
      push(pending(1, { statusCode: '200' }));
      await settle();
      expect(ids(store)).toEqual([9, 5]);
      expect(store.getState().total).toBe(2);
      expect(calls.filter((c) => c.channel === channels.count)).toHaveLength(1);
    });

    it('counts again when a row past the loaded ones may have joined or left, once per interval however many changes', async () => {
      vi.useFakeTimers();
      let ledger = 10;
      const { api, push, calls } = fakeApi(
        () => ({ items: [pending(9), pending(8)], nextCursor: 'c1' }),
        () => ledger,
      );
      const store = open(api);
      await store.getState().show({ statusCodes: ['100'] });
      expect(store.getState().total).toBe(10);
      // Older than the last loaded row: paging will bring it; whether it matched before is unknown.
      ledger = 8;
      for (let i = 1; i <= 3; i++) push(pending(i, { statusCode: '200', updatedAt: at(50 + i) }));
      await vi.advanceTimersByTimeAsync(100);
      expect(ids(store)).toEqual([9, 8]);
      expect(store.getState().total).toBe(10);
      await vi.advanceTimersByTimeAsync(RECOUNT_INTERVAL_MS);
      expect(store.getState().total).toBe(8);
      expect(calls.filter((c) => c.channel === channels.count)).toHaveLength(2);
    });

    it('does not count again when the filter cannot change with a row (newest first)', async () => {
      vi.useFakeTimers();
      const { api, push, calls } = fakeApi(
        () => ({ items: [pending(9), pending(8)], nextCursor: 'c1' }),
        () => 10,
      );
      const store = open(api);
      await store.getState().show({ methods: ['blik'] });
      push(pending(2, { statusCode: '200', updatedAt: at(50) }));
      await vi.advanceTimersByTimeAsync(RECOUNT_INTERVAL_MS * 2);
      expect(store.getState().total).toBe(10);
      expect(calls.filter((c) => c.channel === channels.count)).toHaveLength(1);
    });

    it('keeps a change pushed while a later page was on its way: the page brings the row as it is now, or not at all', async () => {
      const later = gate<Page<Row>>();
      const { api, push } = fakeApi(
        (input) => (input.cursor ? later.promise : { items: [pending(9), pending(8)], nextCursor: 'c1' }),
        () => 4,
      );
      const store = open(api);
      await store.getState().show({ statusCodes: ['100'] });
      const more = store.getState().loadMore();
      push(pending(3, { statusCode: '200', updatedAt: at(60) }));
      push(pending(2, { statusCode: '100', reasonCode: 'X', updatedAt: at(60) }));
      await settle();
      later.open({ items: [pending(3), pending(2)], nextCursor: null });
      await more;
      expect(store.getState().rows.map((r) => [r.id, r.reasonCode])).toEqual([
        [9, null],
        [8, null],
        [2, 'X'],
      ]);
    });

    it('joins a new row at the end of a list sorted oldest first once the last page is loaded, and leaves it to paging before', async () => {
      const paging = fakeApi(
        () => ({ items: [row({ id: 1 })], nextCursor: 'c1' }),
        () => 1,
      );
      const partial = open(paging.api);
      await partial.getState().show({ sort: 'oldest' });
      paging.push(row({ id: 2, createdAt: at(2) }));
      await settle();
      expect(ids(partial)).toEqual([1]);

      const last = fakeApi(
        () => ({ items: [row({ id: 1 })], nextCursor: null }),
        () => 1,
      );
      const ended = open(last.api);
      await ended.getState().show({ sort: 'oldest' });
      last.push(row({ id: 3, createdAt: at(3) }));
      last.push(row({ id: 2, createdAt: at(2) }));
      await settle();
      expect(ended.getState()).toMatchObject({ total: 3 });
      expect(ids(ended)).toEqual([1, 2, 3]);
    });
  });
});
