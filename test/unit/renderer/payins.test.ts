// The pay-ins list and detail logic that needs no browser: route params ↔ filters ↔ query (a
// reload, a code-explorer link and a saved view land on the same list), which pushed pay-ins join
// the list live, exact money text, and the facts dug out of the raw timeline.
import { describe, expect, it } from 'vitest';
// The renderer's global Window.paydesk declaration, which the api client's types rely on.
import type {} from '../../../src/renderer/env';
import type { PayinView, TimelineEntry } from '../../../src/shared/contract';
import { fakeListApi, gate, settle, sharedViewFields, type Page as ListPage } from './list-store-fakes';
import { filtersFromParams, filtersFromQuery, filtersToParams, filtersToQuery, queryKey } from '../../../src/renderer/features/payins/filters';
import { matchesQuery } from '../../../src/renderer/features/payins/matches';
import { createPayinsListStore } from '../../../src/renderer/features/payins/payins-store';
import { prefetchScreen } from '../../../src/renderer/shell/prefetch';
import { parseRoute } from '../../../src/renderer/shell/use-route';
import { lastErrorCode, maskedCard } from '../../../src/renderer/features/transactions/facts';
import { formatMoney, groupDigits, prettyJson } from '../../../src/renderer/features/transactions/format';

const payin = (over: Partial<PayinView>): PayinView => ({
  ...sharedViewFields,
  method: 'blik',
  amount: '10.50',
  currency: 'PLN',
  email: 'Ana@Example.com',
  statusCode: '100',
  statusMeaning: 'Pending redirect',
  kind: 'payin',
  requestId: 'order-1',
  payinId: 'pid-1',
  redirectUrl: null,
  ...over,
});

describe('pay-in list filters', () => {
  it('reads the code explorer links and round-trips every filter through params and saved views', () => {
    expect(filtersToQuery(filtersFromParams({ status: '302' }))).toEqual({ statusCodes: ['302'] });
    expect(filtersToQuery(filtersFromParams({ reason: 'RISK_BLOCKED' }))).toEqual({ reasonCodes: ['RISK_BLOCKED'] });
    const params = { status: '200,777', reason: 'RISK_BLOCKED', category: 'decline', method: 'blik', currency: 'PLN,EUR', from: '2026-03-01', to: '2026-03-31', mismatch: '1', q: 'order-', sort: 'oldest' };
    const filters = filtersFromParams(params);
    expect(filtersToParams(filters)).toEqual(params);
    expect(filtersFromQuery(filtersToQuery(filters))).toEqual(filters);
  });

  it('drops what cannot be meant instead of sending it', () => {
    expect(filtersFromParams({ category: 'decline,bogus', currency: 'pln,EURO', from: 'yesterday', mismatch: 'no', sort: 'sideways' })).toMatchObject({
      categories: ['decline'],
      currencies: ['PLN'],
      from: null,
      hasMismatch: false,
      sort: 'newest',
    });
  });

  it('makes the last day inclusive and gives the same key to the same filters in any order', () => {
    const query = filtersToQuery(filtersFromParams({ from: '2026-03-01', to: '2026-03-01' }));
    expect(Date.parse(query.createdTo ?? '') - Date.parse(query.createdFrom ?? '')).toBe(24 * 3600 * 1000);
    expect(queryKey({ methods: ['blik', 'crypto'], statusCodes: ['200'] })).toBe(queryKey({ statusCodes: ['200'], methods: ['crypto', 'blik'] }));
    expect(queryKey({ methods: ['blik'] })).not.toBe(queryKey({ methods: ['crypto'] }));
  });

  it('matches a pushed pay-in against the query as main would', () => {
    const p = payin({ statusCode: '302', reasonCode: 'RISK_BLOCKED', mismatch: true });
    expect(matchesQuery({}, p)).toBe(true);
    expect(matchesQuery({ statusCodes: ['302'], methods: ['blik'], currencies: ['PLN'], hasMismatch: true }, p)).toBe(true);
    expect(matchesQuery({ statusCodes: ['200'] }, p)).toBe(false);
    expect(matchesQuery({ reasonCodes: ['USER_ABANDONED'] }, p)).toBe(false);
    expect(matchesQuery({ search: 'ana@ex' }, p)).toBe(true); // e-mail: any case
    expect(matchesQuery({ search: 'ORDER' }, p)).toBe(false); // reference: exact case, like the index
    expect(matchesQuery({ search: 'pid-' }, p)).toBe(true);
    expect(matchesQuery({ createdFrom: '2026-03-01T10:00:00.000Z', createdTo: '2026-03-01T10:00:00.001Z' }, p)).toBe(true);
    expect(matchesQuery({ createdTo: '2026-03-01T10:00:00.000Z' }, p)).toBe(false);
  });
});

type Page = ListPage<PayinView>;
const fakeApi = (list: (input: Record<string, unknown>) => Page | Promise<Page>, count?: (input: Record<string, unknown>) => number | Promise<number>) =>
  fakeListApi<PayinView>({ list: 'payins:list', count: 'payins:count', push: 'payins:payin-changed' }, list, count);

describe('pay-ins list store', () => {
  it('pages with the cursor, updates rows in place and puts a matching new pay-in on top', async () => {
    const older = payin({ id: 1, createdAt: '2026-03-01T09:00:00.000Z' });
    const newer = payin({ id: 2, createdAt: '2026-03-01T10:00:00.000Z' });
    const { api, push } = fakeApi(
      (input) => (input.cursor ? { items: [older], nextCursor: null } : { items: [newer], nextCursor: 'c1' }),
      () => 2,
    );
    const store = createPayinsListStore(api);
    await store.getState().show({ methods: ['blik'] });
    await store.getState().loadMore();
    expect(store.getState().rows.map((r) => r.id)).toEqual([2, 1]);

    push(payin({ id: 1, createdAt: older.createdAt, statusCode: '200', updatedAt: '2026-03-01T11:00:00.000Z' }));
    push(payin({ id: 3, createdAt: '2026-03-01T12:00:00.000Z' }));
    push(payin({ id: 4, createdAt: '2026-03-01T12:00:01.000Z', method: 'crypto' })); // filtered out
    await settle();
    const state = store.getState();
    expect(state.rows.map((r) => [r.id, r.statusCode])).toEqual([
      [3, '100'],
      [2, '100'],
      [1, '200'],
    ]);
    expect(state).toMatchObject({ total: 3, arrived: 1 });
  });

  it('never lets an older push overwrite a fresher page, and drops answers to a query no longer shown', async () => {
    const row = payin({ id: 1, statusCode: '200', updatedAt: '2026-03-01T11:00:00.000Z' });
    const { api, push } = fakeApi(() => ({ items: [row], nextCursor: null }));
    const store = createPayinsListStore(api);
    await store.getState().show({});
    push(payin({ id: 1, statusCode: '100', updatedAt: '2026-03-01T10:00:00.000Z' }));
    await settle();
    expect(store.getState().rows[0]?.statusCode).toBe('200');

    let release: () => void = () => {};
    const slow = new Promise<void>((resolve) => (release = resolve));
    const gated = fakeApi(async (input) => {
      if (input.methods) await slow;
      return { items: [payin({ id: input.methods ? 9 : 1 })], nextCursor: null };
    });
    const racing = createPayinsListStore(gated.api);
    const first = racing.getState().show({ methods: ['blik'] });
    await racing.getState().show({});
    release();
    await first;
    expect(racing.getState().rows.map((r) => r.id)).toEqual([1]);
  });
});

describe('pay-ins list total', () => {
  it('shows the first page without waiting for its total, and asks for the count only once the page is in', async () => {
    const page = gate<Page>();
    const counted = gate<number>();
    const { api, calls } = fakeApi(
      () => page.promise,
      () => counted.promise,
    );
    const store = createPayinsListStore(api);
    const shown = store.getState().show({ methods: ['blik'], sort: 'oldest' });
    await settle();
    expect(calls.map((c) => c.channel)).toEqual(['payins:list']); // no count competes with the page
    expect(store.getState()).toMatchObject({ loading: true, total: null });

    page.open({ items: [payin({ id: 7 })], nextCursor: 'c1' });
    await settle();
    expect(store.getState()).toMatchObject({ loading: false, counting: true, total: null });
    expect(store.getState().rows.map((r) => r.id)).toEqual([7]);
    // The count takes the filters only: no order, size or position.
    expect(calls.map((c) => [c.channel, c.input])).toEqual([
      ['payins:list', { methods: ['blik'], sort: 'oldest', limit: 100 }],
      ['payins:count', { methods: ['blik'] }],
    ]);

    counted.open(1_000_000);
    await shown;
    expect(store.getState()).toMatchObject({ counting: false, total: 1_000_000, countError: null });
  });

  it('keeps the rows when the count fails, and says why', async () => {
    const { api } = fakeApi(
      () => ({ items: [payin({ id: 7 })], nextCursor: null }),
      () => Promise.reject(new Error('main is busy')),
    );
    const store = createPayinsListStore(api);
    await store.getState().show({});
    expect(store.getState()).toMatchObject({ counting: false, total: null, countError: 'main is busy', error: null });
    expect(store.getState().rows.map((r) => r.id)).toEqual([7]);
  });

  it('drops the count of a query no longer shown', async () => {
    const counted = gate<number>();
    const { api } = fakeApi(
      (input) => ({ items: [payin({ id: input.methods ? 9 : 1 })], nextCursor: null }),
      (input) => (input.methods ? counted.promise : 5),
    );
    const store = createPayinsListStore(api);
    const first = store.getState().show({ methods: ['blik'] });
    await settle();
    await store.getState().show({});
    counted.open(42);
    await first;
    expect(store.getState()).toMatchObject({ total: 5 });
    expect(store.getState().rows.map((r) => r.id)).toEqual([1]);
  });

  it('adds pay-ins that arrive live to a counted total only', async () => {
    const counted = gate<number>();
    const { api, push } = fakeApi(
      () => ({ items: [payin({ id: 1 })], nextCursor: null }),
      () => counted.promise,
    );
    const store = createPayinsListStore(api);
    const shown = store.getState().show({});
    await settle();
    push(payin({ id: 2, createdAt: '2026-03-01T12:00:00.000Z' }));
    await settle();
    expect(store.getState()).toMatchObject({ total: null, arrived: 1 }); // the count will include it
    counted.open(2);
    await shown;
    push(payin({ id: 3, createdAt: '2026-03-01T13:00:00.000Z' }));
    await settle();
    expect(store.getState()).toMatchObject({ total: 3, arrived: 2 });
  });
});

describe('first screen prefetch', () => {
  it('asks for the pay-ins page of the route before the screen renders, and the screen does not ask again', async () => {
    const { api, calls } = fakeApi(() => ({ items: [payin({ id: 1 })], nextCursor: null }));
    const stores = { payinsList: createPayinsListStore(api) };
    prefetchScreen(stores, parseRoute('#/payins?status=302&sort=oldest'));
    expect(calls.map((c) => [c.channel, c.input])).toEqual([['payins:list', { statusCodes: ['302'], sort: 'oldest', limit: 100 }]]);
    // What PayinsList asks for when it mounts on that route.
    await stores.payinsList.getState().show(filtersToQuery(filtersFromParams({ status: '302', sort: 'oldest' })));
    await settle();
    expect(calls.filter((c) => c.channel === 'payins:list')).toHaveLength(1);
  });

  it('asks nothing for other screens or for one pay-in', () => {
    const { api, calls } = fakeApi(() => ({ items: [], nextCursor: null }));
    const stores = { payinsList: createPayinsListStore(api) };
    prefetchScreen(stores, parseRoute('#/payins/42'));
    prefetchScreen(stores, parseRoute('#/payouts'));
    prefetchScreen(stores, parseRoute('#/reconciliation'));
    expect(calls).toEqual([]);
  });
});

describe('money and raw text', () => {
  it('formats amounts exactly at the method scale, grouped', () => {
    expect(formatMoney('1234567.5', 'EUR', 'blik')).toBe('1,234,567.50 EUR');
    expect(formatMoney('0.0000000001', 'USD', 'crypto')).toBe('0.0000000001 USD');
    expect(formatMoney('12345678901234.99', 'EUR', 'blik')).toBe('12,345,678,901,234.99 EUR');
    expect(formatMoney('abc', 'EUR', 'blik')).toBe('abc EUR');
  });

  it('groups a count like an amount, without Intl', () => {
    expect([0, 7, 999, 1000, 20_000, 1_000_000, 1_234_567_890].map(groupDigits)).toEqual(['0', '7', '999', '1,000', '20,000', '1,000,000', '1,234,567,890']);
  });

  it('pretty-prints JSON without rounding amounts', () => {
    expect(prettyJson('{"amount":10.50,"big":12345678901234567890}')).toBe('{\n  "amount": 10.50,\n  "big": 12345678901234567890\n}');
    expect(prettyJson('<html>')).toBe('<html>');
  });
});

const entry = (over: Partial<TimelineEntry>): TimelineEntry => ({
  key: 'k',
  at: '2026-03-01T10:00:00.000Z',
  kind: 'request',
  title: 't',
  statusCode: null,
  outcome: null,
  detail: null,
  request: null,
  response: null,
  headers: null,
  ...over,
});

describe('facts from the timeline', () => {
  it('finds the error_code of the latest refused answer only', () => {
    expect(lastErrorCode([entry({ kind: 'response', outcome: 'succeeded', response: '{"error_code":"1"}' })])).toBeNull();
    expect(
      lastErrorCode([
        entry({ kind: 'response', outcome: 'rejected', response: '{"error_code":"30103"}', at: 'a' }),
        entry({ kind: 'status_read', outcome: 'rejected', response: '{"error_code":"30101"}', at: 'b' }),
        entry({ kind: 'status_read', outcome: 'ok', response: '{"status_code":100}' }),
      ]),
    ).toEqual({ code: '30101', at: 'b' });
  });

  it('shows the card as first 6 / last 4 at most, even if a full number were handed over', () => {
    expect(maskedCard([entry({ request: '{"cardNum":"411111******1111"}' })])).toBe('411111******1111');
    expect(maskedCard([entry({ request: '{"cardNum":"4111111111111111"}' })])).toBe('411111******1111');
    expect(maskedCard([entry({ request: '{"paymentDetails":{"cardNum":"5555555555554444"}}' })])).toBe('555555******4444');
    expect(maskedCard([entry({ kind: 'notification', request: '{"cardNum":"4111111111111111"}' }), entry({ request: '{"iban":"DE89"}' })])).toBeNull();
  });
});
