// The finance screens' pure parts: the form generated from the field table, the renderer's check
// agreeing with main's (same validator, same field names), the masking the review shows, the
// CSV mapping guess and per-row preview (card rows, duplicates, limits), and the heading of a sent
// payout as its final state arrives. The payouts list store: transaction-lists.test.ts.
import { describe, expect, it } from 'vitest';
// The renderer's global Window.paydesk declaration, which the api client's types rely on.
import type {} from '../../../src/renderer/env';
import type { LimitsList, PayoutCreateForm, PayoutView } from '../../../src/shared/contract';
import { payoutForm } from '../../helpers/fixtures';
import { payoutView } from './list-store-fakes';
import { resultHeading } from '../../../src/renderer/features/payouts/result-heading';
import { PAYOUT_METHODS } from '../../../src/shared/spec/methods';
import { payoutCreateBody } from '../../../src/main/services/payments/bodies';
import { ServiceError } from '../../../src/main/services/errors';
import type { Profile } from '../../../src/main/ledger/repositories/profiles';
import { guessMapping, validateRows, type ParsedCsv } from '../../../src/renderer/features/payouts/csv';
import { payoutFields } from '../../../src/renderer/features/payouts/form-fields';
import { destinationSummary, maskedDestination, maskIban } from '../../../src/shared/payout-destination';
import { payoutProblems, toPayoutForm } from '../../../src/renderer/features/payouts/validate';

const CARD_YEAR = String(new Date().getUTCFullYear() + 3);
const profile = { merchantId: 'm-1', merchantSiteId: 's-1' } as Profile;

/** A payout form as the fields' text, by path ("amount", "customer.email", "paymentDetails.iban"). */
function asTyped(form: PayoutCreateForm): Record<string, string> {
  const { customer, paymentDetails, ...top } = form;
  const text = (entries: [string, unknown][], prefix = '') => entries.filter(([key]) => key !== 'method' && key !== 'profileId').map(([key, value]) => [`${prefix}${key}`, String(value)] as const);
  return Object.fromEntries([...text(Object.entries(top)), ...text(Object.entries(customer ?? {}), 'customer.'), ...text(Object.entries(paymentDetails ?? {}), 'paymentDetails.')]);
}

/** What main says about the same form: field → problem ({} when it would be sent). */
async function mainProblems(form: ReturnType<typeof toPayoutForm>): Promise<Record<string, string>> {
  try {
    await payoutCreateBody(form, { profile, notificationUrl: 'http://127.0.0.1:9/n/x', newReference: () => 'ref-1', referenceTaken: async () => false });
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

  it('finds the same problems main finds, under the same field names', async () => {
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
      expect(mine, c.method).toEqual(await mainProblems(form));
    }
  });

  it('accepts a complete form of every method, as main does', async () => {
    for (const method of PAYOUT_METHODS) {
      // The shared sample of this method as typed; a field of another method typed earlier stays out of the form.
      const form = toPayoutForm(method, { 'paymentDetails.walletAddress': 'left-over', ...asTyped(payoutForm(method)) });
      expect(payoutProblems(form), method).toEqual({});
      expect(await mainProblems(form), method).toEqual({});
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
  const csv = (rows: string[][]): ParsedCsv => ({ fileName: 'x.csv', encoding: 'utf-8', headers, rows: rows.map((cells, i) => ({ line: i + 2, cells })) });
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
    const limits: LimitsList = { day: '2026-01-01', limits: [{ environment: 'any', currency: 'EUR', perPayoutMax: '500', dailyMax: '700', updatedAt: '', usage: [{ environment: 'local', usedToday: '100' }, { environment: 'live', usedToday: '0' }] }], duplicateWindowDays: 30 };
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

describe('the heading of a sent payout', () => {
  const sent = (over: Partial<PayoutView>) => payoutView({ email: 'bob+sC405@example.com', ...over });


  it('says the send was accepted while the payout is pending, without the colour of success', () => {
    expect(resultHeading('succeeded', sent({}))).toMatchObject({ stage: 'sent', color: 'blue', title: expect.stringContaining('waiting for its final result') });
  });

  it('follows a declining notification, then shows the final decline in red once a status read verified it', () => {
    const claimed = resultHeading('succeeded', sent({ lastNotifiedStatus: 'C405', claimState: 'unverified', verification: 'claimed' }));
    expect(claimed).toMatchObject({ stage: 'claimed', color: 'yellow', title: 'Notified C405: being verified' });
    const declined = resultHeading('succeeded', sent({ statusCode: 'C405', statusCategory: 'merchant_setup', final: true, lastNotifiedStatus: 'C405', lastVerifiedStatus: 'C405', claimState: 'verified', verification: 'verified' }));
    expect(declined).toMatchObject({ stage: 'final', color: 'red', title: 'Payout failed: C405' });
    expect(declined.text).toContain('Insufficient balance in the wallet for payout. Top up the payout wallet, then send a new payout.');
  });

  it('shows a payout that succeeded in green, and contradicting answers in red', () => {
    expect(resultHeading('succeeded', sent({ statusCode: 'P200', statusCategory: 'success', final: true, verification: 'verified' }))).toMatchObject({ stage: 'final', color: 'teal', title: 'Payout succeeded' });
    expect(resultHeading('succeeded', sent({ statusCode: 'P200', final: true, mismatch: true, verification: 'mismatch' }))).toMatchObject({ stage: 'mismatch', color: 'red' });
  });

  it('keeps the send outcome when there is no payout row, or the send did not go through', () => {
    expect(resultHeading('rejected', null)).toMatchObject({ stage: 'sent', color: 'red', title: 'The gateway refused the payout' });
    expect(resultHeading('unknown', sent({ statusCode: null }))).toMatchObject({ stage: 'sent', color: 'yellow' });
  });
});
