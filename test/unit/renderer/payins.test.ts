// The pay-ins list and detail logic that needs no browser: route params ↔ filters ↔ query (a
// reload, a code-explorer link and a saved view land on the same list), which pushed pay-ins match
// the query, the first screen's prefetch, exact money text, and the facts dug out of the raw
// timeline. The list store itself: transaction-lists.test.ts.
import { describe, expect, it } from 'vitest';
// The renderer's global Window.paydesk declaration, which the api client's types rely on.
import type {} from '../../../src/renderer/env';
import type { PayinView, TimelineEntry } from '../../../src/shared/contract';
import { fakeListApi, payinView, settle, type Page as ListPage } from './list-store-fakes';
import { filtersFromParams, filtersFromQuery, filtersToParams, filtersToQuery, matchesQuery } from '../../../src/renderer/features/transactions/list-query';
import { queryKey } from '../../../src/renderer/stores/keyset-list';
import { createPayinsListStore } from '../../../src/renderer/features/transactions/transaction-list-store';
import { prefetchScreen } from '../../../src/renderer/shell/prefetch';
import { parseRoute } from '../../../src/renderer/shell/use-route';
import { lastErrorCode } from '../../../src/renderer/features/transactions/facts';
import { brandLabel, cardLabel } from '../../../src/renderer/features/transactions/card';
import { formatMoney, groupDigits, prettyJson } from '../../../src/renderer/features/transactions/format';

const payin = payinView;

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
const fakeApi = (list: (input: Record<string, unknown>) => Page | Promise<Page>) => fakeListApi<PayinView>({ list: 'payins:list', count: 'payins:count', push: 'payins:payin-changed' }, list);

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
  it('formats amounts exactly, with every digit they have and at least the currency\'s minor units, grouped', () => {
    expect(formatMoney('1234567.5', 'EUR')).toBe('1,234,567.50 EUR');
    expect(formatMoney('0.0000000001', 'USD')).toBe('0.0000000001 USD');
    expect(formatMoney('12345678901234.99', 'EUR')).toBe('12,345,678,901,234.99 EUR');
    // A crypto payout of 15.70 EUR (kept as "15.7" by older ledgers) is 15.70.
    expect(formatMoney('15.7', 'EUR')).toBe('15.70 EUR');
    expect(formatMoney('15.70', 'EUR')).toBe('15.70 EUR');
    expect(formatMoney('1000.00', 'JPY')).toBe('1,000 JPY');
    expect(formatMoney('1000.5', 'JPY')).toBe('1,000.5 JPY');
    expect(formatMoney('1.5', 'KWD')).toBe('1.500 KWD');
    expect(formatMoney('0.1234567891', 'KWD')).toBe('0.1234567891 KWD');
    expect(formatMoney('abc', 'EUR')).toBe('abc EUR');
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
  event: null,
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

  it('words the card main recorded: brand, first 6 / last 4, expiry', () => {
    expect(cardLabel({ brand: 'visa', maskedPan: '411111******1111', expMonth: '12', expYear: '2028' })).toBe('Visa 411111******1111 · expires 12/2028');
    expect(cardLabel({ brand: null, maskedPan: '555555******4444', expMonth: null, expYear: null })).toBe('555555******4444');
    expect(['american-express', 'jcb', 'diners-club'].map(brandLabel)).toEqual(['American Express', 'JCB', 'Diners Club']);
  });
});
