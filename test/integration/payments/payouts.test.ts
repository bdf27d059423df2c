// Payouts through the contract: every method to its final state by notification (and a C405),
// audited before sending, validated before sending, retried with the same key after a 5xx, and
// refused on a sandbox profile (spec 4, rule 3).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { payoutProblems, toPayoutForm } from '../../../src/renderer/features/payouts/validate';
import { PAYOUT_METHODS } from '../../../src/shared/spec/methods';
import { payinForm } from '../../helpers/fixtures';
import { admin, CARD_YEAR, payoutForm, pushesOn, startHarness, TEST_PAN, waitFor, type Harness } from './harness';

let h: Harness;
let seq = 0;
const ref = (prefix: string) => `${prefix}-${Date.now()}-${++seq}`;
const audit = () => createRepositories(h.core.ledger).audit.list({ limit: 1000 });

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

const payout = async (merchantReference: string) => (await h.call('payouts:get', { merchantReference })).payout;

describe('creating payouts', () => {
  it('pays out with every method (and ends a +sC405 one in C405), notified and then confirmed by a status read', async () => {
    const cases = [...PAYOUT_METHODS.map((method) => ({ method, email: 'ana@example.com', final: 'P200' })), { method: 'credit_card' as const, email: 'ana+sC405@example.com', final: 'C405' }];
    const references = cases.map((c) => ref(c.method));
    const results = await Promise.all(cases.map((c, i) => h.call('payouts:create', payoutForm(c.method, { email: c.email, reference: references[i] }))));
    for (const [i, result] of results.entries()) {
      expect(result, cases[i]?.method).toMatchObject({
        outcome: 'succeeded',
        tries: 1,
        payin: null,
        payout: { merchantReference: references[i], method: cases[i]?.method, statusCode: 'P100', final: false },
        attempt: { kind: 'payout', state: 'succeeded' },
      });
      expect(result.payout?.payoutId).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(results[PAYOUT_METHODS.indexOf('crypto')]?.payout?.amount).toBe('0.0000000001');
    // The card paid out to is on the row, masked.
    expect(results[PAYOUT_METHODS.indexOf('credit_card')]?.payout?.card).toEqual({ brand: 'visa', maskedPan: '411111******1111', expMonth: '12', expYear: CARD_YEAR });
    expect(results[PAYOUT_METHODS.indexOf('fps')]?.payout?.card).toBeNull();
    // What was sent: card number masked in the stored request.
    const cardRequest = results[0]?.attempt.request ?? '';
    expect(cardRequest).toContain('411111******1111');
    expect(cardRequest).not.toContain(TEST_PAN);

    await waitFor(
      () => Promise.all(references.map(payout)),
      (rows) => rows.every((row, i) => row.lastNotifiedStatus === cases[i]?.final),
      'every payout notification',
    );
    for (const [i, reference] of references.entries()) {
      const row = await payout(reference);
      const read = await h.call('payouts:read-status', { payoutId: row.payoutId ?? '' });
      expect(read.read).toMatchObject({ result: 'ok', statusCode: cases[i]?.final });
      expect(read.payout).toMatchObject({ statusCode: cases[i]?.final, final: true, verification: 'verified' });
    }
    expect(await payout(references[4] as string)).toMatchObject({ statusCode: 'C405', reasonCode: 'INSUFFICIENT_FUNDS', statusCategory: expect.any(String) });

    // One audit entry per payout, written with the intent, naming the destination masked.
    const entries = (await audit()).filter((e) => e.action === 'payout.create' && references.includes(e.subject ?? ''));
    expect(entries).toHaveLength(cases.length);
    const cardEntry = entries.find((e) => e.subject === references[0]);
    expect(JSON.parse(cardEntry?.details ?? '{}')).toMatchObject({ method: 'credit_card', amount: '99.90', currency: 'EUR', destination: 'card 411111******1111', idempotencyKey: results[0]?.attempt.idempotencyKey });
    expect(JSON.stringify(await audit())).not.toContain(TEST_PAN);
  });

  it("pushes each change of a payout as the view payouts:get answers, with its attempt's state and its card", async () => {
    const { seen: pushed, stop } = pushesOn(h.core, 'payouts:payout-changed');
    try {
      const reference = ref('push-card');
      await h.call('payouts:create', payoutForm('credit_card', { reference }));
      const mine = pushed.filter((p) => p.merchantReference === reference);
      expect(mine[0]).toMatchObject({ statusCode: null, attempt: { state: 'sending' }, card: { maskedPan: '411111******1111' } });
      // Each push is the view of its moment: once the notifications are in, the last one is the payout as it is.
      const settled = await waitFor(() => payout(reference), (view) => view?.verification === 'verified', 'the payout verified');
      await waitFor(() => pushed.filter((p) => p.merchantReference === reference).at(-1), (last) => last?.verification === 'verified', 'its push');
      expect(pushed.filter((p) => p.merchantReference === reference).at(-1)).toEqual(settled);
    } finally {
      stop();
    }
  });

  it('retries a payout after an HTTP 500 with the same key: one payout, one audit entry', async () => {
    await admin(h.core, '/faults', { api: { create_errors: 1 } }, 'PUT');
    const reference = ref('after-500');
    const result = await h.call('payouts:create', payoutForm('fps', { reference }));
    expect(result).toMatchObject({ outcome: 'succeeded', tries: 2, payout: { statusCode: 'P100' } });
    const fetched = await admin<{ payout_id: string }>(h.core, `/payouts/${result.payout?.payoutId}`);
    expect(fetched.status).toBe(200);
    expect((await h.call('payouts:get', { merchantReference: reference })).attempts).toHaveLength(1);
    expect((await audit()).filter((e) => e.subject === reference)).toHaveLength(1);
  });

  it('validates before sending, naming nested fields, and records nothing', async () => {
    const reference = ref('invalid');
    const refused = await h.failure('payouts:create', {
      method: 'open_banking',
      amount: '10.001',
      currency: 'EUR',
      country: 'DEU',
      merchantReference: reference,
      customer: { firstName: 'Ana', email: 'nope' },
      paymentDetails: { iban: 'DE00370400440532013000', bic: 'COBADEFFXXX', walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7' },
    });
    expect(refused.code).toBe('invalid_input');
    expect(Object.keys(refused.fields ?? {}).sort()).toEqual(['amount', 'customer.email', 'customer.lastName', 'paymentDetails.accountHolder', 'paymentDetails.iban', 'paymentDetails.walletAddress']);
    expect((await h.failure('payouts:create', { ...payoutForm('crypto'), method: 'cash' })).fields).toHaveProperty('method');
    expect((await h.failure('payouts:get', { merchantReference: reference })).code).toBe('not_found');
    expect((await audit()).filter((e) => e.subject === reference)).toEqual([]);
  });
});

describe('the amount as typed', () => {
  it("takes ' 10.00 ' as New payout does (the spaces around it dropped), in the playground's payout and pay-in alike", async () => {
    // New payout trims what is typed before sending; the playground sends the form as it is: main reads both the same way.
    const payoutReference = ref('spaced');
    const sent = await h.call('payouts:create', { ...payoutForm('open_banking', { reference: payoutReference }), amount: ' 10.00 ' });
    expect(sent.payout).toMatchObject({ merchantReference: payoutReference, amount: '10.00' });
    expect(sent.attempt.request).toContain('"amount":10.00');
    const payin = await h.call('payins:create', { ...payinForm('open_banking', { requestId: ref('spaced-payin') }), amount: '\t10.00 ' });
    expect(payin.payin).toMatchObject({ amount: '10.00' });
    // What is not an amount is still refused, with the same words everywhere.
    const GROUPED = 'must be a number such as 10.50 (digits, an optional dot and decimals)';
    expect((await h.failure('payouts:create', { ...payoutForm('open_banking', { reference: ref('grouped') }), amount: '1 000.00' })).fields).toEqual({ amount: GROUPED });
    expect(payoutProblems(toPayoutForm('open_banking', { amount: '1 000.00' })).amount).toBe(GROUPED);
  });
});

describe('a sandbox profile', () => {
  it('refuses payouts and payout status reads with a clear error, recording nothing', async () => {
    const sandbox = await h.call('profiles:create', { name: 'Demo', environment: 'sandbox', baseUrl: 'https://sandbox.example.com/api/', merchantId: 'm-1', merchantSiteId: 's-1' });
    const before = (await audit()).length;
    const refused = await h.failure('payouts:create', payoutForm('fps', { profileId: sandbox.id, reference: ref('sandbox') }));
    expect(refused.code).toBe('unavailable');
    expect(refused.message).toMatch(/sandbox/);
    expect((await h.failure('payouts:read-status', { profileId: sandbox.id, payoutId: '00000000-0000-4000-8000-000000000000' })).code).toBe('unavailable');
    expect((await audit()).length).toBe(before);
  });
});
