// Amounts as their currency writes them. A crypto payout of 15.70 EUR was kept
// as "15.7" (the ledger canonicalised crypto amounts without trailing zeros) and shown "15.7 EUR"
// after sending; the gateway's JSON number (15.7 in its notification and status read) only ever
// compares by value. Now the ledger keeps the amount at least at the currency's minor units,
// through the create, the notification and the status read, in lists, totals and search.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { payinForm, payoutForm, startHarness, waitFor, type Harness } from './harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

describe('the ledger keeps amounts as their currency writes them', () => {
  it('a crypto payout of 15.70 EUR stays 15.70 after the gateway answers 15.7', async () => {
    const reference = `scale-crypto-${Date.now()}`;
    const created = await h.call('payouts:create', payoutForm('crypto', { amount: '15.70', reference }));
    expect(created.payout?.amount).toBe('15.70');

    const notified = await waitFor(
      async () => (await h.call('payouts:get', { merchantReference: reference })).payout,
      (payout) => payout.lastNotifiedStatus === 'P200',
      'the P200 notification',
    );
    const read = await h.call('payouts:read-status', { payoutId: notified.payoutId ?? '' });
    expect(read.read).toMatchObject({ result: 'ok', statusCode: 'P200' });
    const final = (await h.call('payouts:get', { merchantReference: reference })).payout;
    expect(final).toMatchObject({ amount: '15.70', statusCode: 'P200', verification: 'verified' });
    expect(final.mismatch).toBe(false);
    // What the gateway said: a JSON number without the trailing zero.
    const { entries } = await h.call('payouts:timeline', { id: final.id });
    expect(entries.some((e) => e.kind === 'status_read' && /"amount":15\.7[,}]/.test(e.response ?? ''))).toBe(true);

    expect((await h.call('payouts:list', { search: reference })).items.map((p) => p.amount)).toEqual(['15.70']);
    expect((await h.call('search:lookup', { query: reference })).matches.map((m) => m.amount)).toEqual(['15.70']);
    const totals = await h.call('reconciliation:totals', { subjects: ['payout'] });
    expect(totals.rows.find((r) => r.method === 'crypto' && r.currency === 'EUR' && r.statusCode === 'P200')?.amount).toMatch(/^\d+\.\d{2,}$/);
  });

  it('a JPY pay-in keeps no decimals, a KWD one three', async () => {
    const jpy = await h.call('payins:create', { ...payinForm('blik', { amount: '1000.00', requestId: `scale-jpy-${Date.now()}` }), currency: 'JPY' });
    expect(jpy.payin?.amount).toBe('1000');
    const kwd = await h.call('payins:create', { ...payinForm('blik', { amount: '1.5', requestId: `scale-kwd-${Date.now()}` }), currency: 'KWD' });
    expect(kwd.payin?.amount).toBe('1.500');
  });

  it('a row written before (crypto "15.7" for 15.70 EUR) is still the same request on a redo', async () => {
    const repos = createRepositories(h.core.ledger);
    const profileId = (await h.call('profiles:list')).find((p) => p.environment === 'local')?.id as string;
    const merchantReference = `scale-redo-${Date.now()}`;
    const facts = { profileId, merchantReference, method: 'crypto', currency: 'EUR', email: 'ana@example.com' };
    const { id } = await repos.payouts.recordRequest({ ...facts, amount: '15.70' });
    await h.core.ledger.run('UPDATE payouts SET amount = ? WHERE id = ?', ['15.7', id]);
    expect((await repos.payouts.recordRequest({ ...facts, amount: '15.70' })).id).toBe(id);
    await expect(repos.payouts.recordRequest({ ...facts, amount: '15.71' })).rejects.toThrow(RangeError);
  });
});
