// The finance screens' pure parts: the form generated from the field table, the renderer's check
// agreeing with main's (same validator, same field names), the masking the review shows, the
// CSV mapping guess and per-row preview (card rows, duplicates, limits), and the payouts list
// store's page-then-count order.
import { describe, expect, it } from 'vitest';
// The renderer's global Window.paydesk declaration, which the api client's types rely on.
import type {} from '../../../src/renderer/env';
import type { LimitsList, PayoutView } from '../../../src/shared/contract';
import { fakeListApi, gate, settle, sharedViewFields, type Page as ListPage } from './list-store-fakes';
import { PAYOUT_METHODS } from '../../../src/shared/spec/methods';
import { payoutCreateBody } from '../../../src/main/services/payments/bodies';
import { ServiceError } from '../../../src/main/services/errors';
import type { Profile } from '../../../src/main/ledger/repositories/profiles';
import { guessMapping, validateRows, type ParsedCsv } from '../../../src/renderer/features/payouts/csv';
import { payoutFields } from '../../../src/renderer/features/payouts/form-fields';
import { destinationSummary, maskedDestination, maskIban } from '../../../src/renderer/features/payouts/mask';
import { payoutProblems, toPayoutForm } from '../../../src/renderer/features/payouts/validate';
import { createPayoutsStore } from '../../../src/renderer/features/payouts/payouts-store';

const CARD_YEAR = String(new Date().getUTCFullYear() + 3);
const profile = { merchantId: 'm-1', merchantSiteId: 's-1' } as Profile;

/** What main says about the same form: field → problem ({} when it would be sent). */
function mainProblems(form: ReturnType<typeof toPayoutForm>): Record<string, string> {
  try {
    payoutCreateBody(form, { profile, notificationUrl: 'http://127.0.0.1:9/n/x', newReference: () => 'ref-1', referenceTaken: () => false });
    return {};
  } catch (error) {
    if (error instanceof ServiceError) return error.fields ?? {};
    throw error;
  }
}

describe('the manual payout form', () => {
  it('shows exactly the fields of each method from the shared table, without those main fills in', () => {
    expect(payoutFields('fps').map((f) => f.path)).toEqual([
      'amount', 'currency', 'merchantReference', 'country', 'customer.firstName', 'customer.lastName', 'customer.email', 'customer.phone',
      'paymentDetails.accountHolder', 'paymentDetails.sortCode', 'paymentDetails.accountNumber',
    ]);
    expect(payoutFields('credit_card').filter((f) => f.group === 'destination').map((f) => f.path)).toEqual([
      'paymentDetails.cardNum', 'paymentDetails.cardHolder', 'paymentDetails.cardExpireMonth', 'paymentDetails.cardExpireYear',
    ]);
    expect(payoutFields('crypto').find((f) => f.path === 'amount')?.description).toContain('at most 10 decimals');
    expect(payoutFields('open_banking').find((f) => f.path === 'merchantReference')?.required).toBe(false);
  });

  it('finds the same problems main finds, under the same field names', () => {
    const cases: { method: 'open_banking' | 'fps' | 'credit_card' | 'crypto'; values: Record<string, string> }[] = [
      { method: 'open_banking', values: { amount: '10.123', currency: 'EUR', country: 'DEU', 'customer.firstName': 'A', 'customer.lastName': 'B', 'customer.email': 'not-an-email', 'paymentDetails.iban': 'DE00', 'paymentDetails.bic': 'X' } },
      { method: 'fps', values: { amount: 'ten', currency: 'gbp', country: 'GBR', 'paymentDetails.sortCode': '12', 'paymentDetails.accountHolder': ' ' } },
      { method: 'credit_card', values: { amount: '5', currency: 'EUR', country: 'DE', 'paymentDetails.cardNum': '4111111111111112', 'paymentDetails.cardExpireMonth': '13', 'paymentDetails.cardExpireYear': CARD_YEAR } },
      { method: 'crypto', values: { amount: '0.00000000001', currency: 'EUR', country: 'DEU', 'customer.firstName': 'A', 'customer.lastName': 'B', 'customer.email': 'a@example.com', 'paymentDetails.walletAddress': 'short', 'paymentDetails.network': 'eth' } },
    ];
    for (const c of cases) {
      const form = toPayoutForm(c.method, c.values);
      const mine = payoutProblems(form);
      expect(Object.keys(mine).length, c.method).toBeGreaterThan(1);
      // Main also reports the reference it would generate as fine; everything else agrees.
      expect(mine, c.method).toEqual(mainProblems(form));
    }
  });

  it('accepts a complete form of every method, as main does', () => {
    const details = {
      credit_card: { 'paymentDetails.cardNum': '4111111111111111', 'paymentDetails.cardHolder': 'Ana Lima', 'paymentDetails.cardExpireMonth': '12', 'paymentDetails.cardExpireYear': CARD_YEAR },
      open_banking: { 'paymentDetails.iban': 'DE89 3704 0044 0532 0130 00', 'paymentDetails.bic': 'COBADEFFXXX', 'paymentDetails.accountHolder': 'Ana Lima' },
      crypto: { 'paymentDetails.walletAddress': '0x52908400098527886E0F7030069857D2E4169EE7', 'paymentDetails.network': 'ethereum' },
      fps: { 'paymentDetails.sortCode': '401276', 'paymentDetails.accountNumber': '12345678', 'paymentDetails.accountHolder': 'Ana Lima' },
    };
    for (const method of PAYOUT_METHODS) {
      // Fields of another method typed earlier stay out of the form.
      const form = toPayoutForm(method, { amount: method === 'crypto' ? '0.0000000001' : '10.50', currency: 'EUR', country: 'DEU', 'customer.firstName': 'Ana', 'customer.lastName': 'Lima', 'customer.email': 'ana@example.com', 'paymentDetails.walletAddress': method === 'crypto' ? details.crypto['paymentDetails.walletAddress'] : 'left-over', ...details[method] });
      expect(payoutProblems(form), method).toEqual({});
      expect(mainProblems(form), method).toEqual({});
    }
  });
});

describe('masking', () => {
  it('keeps a card to first 6 / last 4, an IBAN to its country and last 4, a wallet shortened, an account to its last 4', () => {
    expect(maskedDestination('credit_card', { cardNum: '4111111111111111', cardHolder: 'A', cardExpireMonth: '12', cardExpireYear: '2030' })[0]).toEqual({ label: 'Card', value: '411111******1111' });
    expect(maskIban('DE89 3704 0044 0532 0130 00')).toBe('DE•• •••• •••• •••• •• 3000');
    expect(maskedDestination('crypto', { walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7', network: 'ethereum' })[0]?.value).toBe('0x5290…9EE7');
    expect(maskedDestination('fps', { sortCode: '401276', accountNumber: '12345678', accountHolder: 'A' }).map((l) => l.value)).toEqual(['40-12-76', '••••5678', 'A']);
    expect(destinationSummary('open_banking', { iban: 'DE89370400440532013000' })).toBe('DE•• … 3000');
    expect(destinationSummary('fps', { sortCode: '401276', accountNumber: '12345678' })).toBe('40-12-76 ••••5678');
  });
});

describe('the CSV preview', () => {
  const headers = ['Type', 'Amount', 'CCY', 'Country', 'First Name', 'Surname', 'E-mail', 'IBAN', 'SWIFT', 'Holder', 'Sort code', 'Account number', 'Reference'];
  const csv = (rows: string[][]): ParsedCsv => ({ fileName: 'x.csv', headers, rows: rows.map((cells, i) => ({ line: i + 2, cells })) });
  const ob = (amount: string, ref = '') => ['open_banking', amount, 'EUR', 'DEU', 'Ana', 'Lima', 'ana@example.com', 'DE89370400440532013000', 'COBADEFFXXX', 'Ana Lima', '', '', ref];

  it('guesses the mapping from common header spellings', () => {
    const { columns } = guessMapping(headers);
    expect(columns).toMatchObject({
      method: 0, amount: 1, currency: 2, country: 3, 'customer.firstName': 4, 'customer.lastName': 5, 'customer.email': 6,
      'paymentDetails.iban': 7, 'paymentDetails.bic': 8, 'paymentDetails.accountHolder': 9, 'paymentDetails.sortCode': 10, 'paymentDetails.accountNumber': 11, merchantReference: 12,
    });
    expect(guessMapping(['amount', 'iban']).fixedMethod).toBe('open_banking');
  });

  it('names each row\'s problems: card rows, bad fields, references used twice, and per-payout and daily limits', async () => {
    const limits: LimitsList = { day: '2026-01-01', limits: [{ environment: 'any', currency: 'EUR', perPayoutMax: '500', dailyMax: '700', updatedAt: '', usage: [{ environment: 'local', usedToday: '100' }, { environment: 'live', usedToday: '0' }] }] };
    const rows = [
      ob('200.00', 'r-1'),
      ['credit_card', '10', 'EUR', 'DEU', 'A', 'B', 'a@example.com', '', '', '', '', '', ''],
      ob('10.123'),
      ob('20.00', 'r-1'),
      ob('600.00'),
      ob('300.00'),
      ob('150.00'),
      ['fps', '10.00', 'GBP', 'GBR', 'Bob', 'Stone', 'bob@example.com', '', '', 'Bob Stone', '401276', '12345678', ''],
    ];
    const progress: number[] = [];
    const preview = await validateRows(csv(rows), guessMapping(headers), { environment: 'local', limits }, (n) => progress.push(n), new AbortController().signal);
    const byLine = new Map(preview.map((r) => [r.line, r]));
    expect(byLine.get(2)?.problems).toEqual({});
    expect(byLine.get(3)?.problems.method).toContain('card payouts are not made in batches');
    expect(byLine.get(4)?.problems.amount).toBe('must have at most 2 decimals');
    expect(byLine.get(5)?.problems.merchantReference).toBe('is already used on line 2 of this file');
    expect(byLine.get(6)?.problems.amount).toBe('is over the per-payout limit of 500 EUR');
    // 100 used today + 200 + 300 = 600 ≤ 700; the next 150 would make 750.
    expect(byLine.get(7)?.warning).toBeNull();
    expect(byLine.get(8)?.warning).toContain('would pass the daily limit of 700 EUR (750 with the rows above)');
    expect(byLine.get(9)).toMatchObject({ problems: {}, warning: null, method: 'fps' });
    expect(progress.at(-1)).toBe(rows.length);
  });
});

const payout = (over: Partial<PayoutView>): PayoutView => ({
  ...sharedViewFields,
  method: 'fps',
  amount: '9.99',
  currency: 'GBP',
  email: 'pay@example.com',
  statusCode: 'P100',
  statusMeaning: 'Payout initiated',
  merchantReference: 'po-1',
  payoutId: 'pout-1',
  ...over,
});

type Page = ListPage<PayoutView>;
const fakeApi = (list: (input: Record<string, unknown>) => Page | Promise<Page>, count: (input: Record<string, unknown>) => number | Promise<number>) =>
  fakeListApi<PayoutView>({ list: 'payouts:list', count: 'payouts:count', push: 'payouts:payout-changed' }, list, count);

describe('the payouts list total', () => {
  it('shows the first page without waiting for its total, and asks for the count only once the page is in', async () => {
    const page = gate<Page>();
    const counted = gate<number>();
    const { api, calls } = fakeApi(
      () => page.promise,
      () => counted.promise,
    );
    const store = createPayoutsStore(api);
    const shown = store.getState().showList({ methods: ['fps'], sort: 'oldest' });
    await settle();
    expect(calls.map((c) => c.channel)).toEqual(['payouts:list']); // no count competes with the page
    expect(store.getState().list).toMatchObject({ loading: true, total: null });

    page.open({ items: [payout({ id: 7 })], nextCursor: 'c1' });
    await settle();
    expect(store.getState().list).toMatchObject({ loading: false, counting: true, total: null });
    expect(store.getState().list.rows.map((r) => r.id)).toEqual([7]);
    // The count takes the filters only: no order, size or position.
    expect(calls.map((c) => [c.channel, c.input])).toEqual([
      ['payouts:list', { methods: ['fps'], sort: 'oldest', limit: 100 }],
      ['payouts:count', { methods: ['fps'] }],
    ]);

    counted.open(200_000);
    await shown;
    expect(store.getState().list).toMatchObject({ counting: false, total: 200_000, countError: null });
  });

  it('keeps the rows when the count fails, and says why', async () => {
    const { api } = fakeApi(
      () => ({ items: [payout({ id: 7 })], nextCursor: null }),
      () => Promise.reject(new Error('main is busy')),
    );
    const store = createPayoutsStore(api);
    await store.getState().showList({});
    expect(store.getState().list).toMatchObject({ counting: false, total: null, countError: 'main is busy', error: null });
    expect(store.getState().list.rows.map((r) => r.id)).toEqual([7]);
  });

  it('drops the count of a query no longer shown', async () => {
    const counted = gate<number>();
    const { api } = fakeApi(
      (input) => ({ items: [payout({ id: input.methods ? 9 : 1 })], nextCursor: null }),
      (input) => (input.methods ? counted.promise : 5),
    );
    const store = createPayoutsStore(api);
    const first = store.getState().showList({ methods: ['fps'] });
    await settle();
    await store.getState().showList({});
    counted.open(42);
    await first;
    expect(store.getState().list).toMatchObject({ total: 5 });
    expect(store.getState().list.rows.map((r) => r.id)).toEqual([1]);
  });

  it('adds payouts that arrive live to a counted total only', async () => {
    const counted = gate<number>();
    const { api, push } = fakeApi(
      () => ({ items: [payout({ id: 1 })], nextCursor: null }),
      () => counted.promise,
    );
    const store = createPayoutsStore(api);
    const shown = store.getState().showList({});
    await settle();
    push(payout({ id: 2, createdAt: '2026-03-01T12:00:00.000Z' }));
    await settle();
    expect(store.getState().list).toMatchObject({ total: null }); // the count will include it
    expect(store.getState().list.rows.map((r) => r.id)).toEqual([2, 1]);
    counted.open(2);
    await shown;
    push(payout({ id: 3, createdAt: '2026-03-01T13:00:00.000Z' }));
    await settle();
    expect(store.getState().list).toMatchObject({ total: 3 });
  });
});

describe('live payouts in a list sorted oldest first', () => {
  it('joins a new payout at the end once the last page is loaded, and leaves it to paging before', async () => {
    const more = fakeApi(
      () => ({ items: [payout({ id: 1 })], nextCursor: 'c1' }),
      () => 1,
    );
    const paging = createPayoutsStore(more.api);
    await paging.getState().showList({ sort: 'oldest' });
    more.push(payout({ id: 2, createdAt: '2026-03-01T12:00:00.000Z' }));
    await settle();
    expect(paging.getState().list).toMatchObject({ total: 1 });
    expect(paging.getState().list.rows.map((r) => r.id)).toEqual([1]);

    const last = fakeApi(
      () => ({ items: [payout({ id: 1 })], nextCursor: null }),
      () => 1,
    );
    const ended = createPayoutsStore(last.api);
    await ended.getState().showList({ sort: 'oldest' });
    last.push(payout({ id: 3, createdAt: '2026-03-01T13:00:00.000Z' }));
    last.push(payout({ id: 2, createdAt: '2026-03-01T12:00:00.000Z' }));
    await settle();
    expect(ended.getState().list).toMatchObject({ total: 3 });
    expect(ended.getState().list.rows.map((r) => r.id)).toEqual([1, 2, 3]);
  });
});
