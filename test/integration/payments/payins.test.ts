// Pay-ins through the contract against the real embedded emulator: every method to its final
// status by notification, a decline, validation before anything is sent, status reads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYIN_METHODS, type PayinMethod } from '../../../src/shared/spec/methods';
import { CARD_YEAR, emulatorPayins, payinForm, pushesOn, startHarness, waitFor, type Harness } from './harness';

let h: Harness;
let seq = 0;
const ref = (prefix: string) => `${prefix}-${Date.now()}-${++seq}`;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

const payin = async (requestId: string) => (await h.call('payins:get', { requestId })).payin;

describe('creating pay-ins', () => {
  it('completes a pay-in of every method via +s200: created at 100, notified at the listener, final 200 in the ledger', async () => {
    const requestIds = PAYIN_METHODS.map((method) => ref(method));
    const results = await Promise.all(
      PAYIN_METHODS.map((method, i) => h.call('payins:create', payinForm(method, { email: 'ana+s200@example.com', requestId: requestIds[i] }))),
    );
    for (const [i, result] of results.entries()) {
      expect(result, PAYIN_METHODS[i]).toMatchObject({
        outcome: 'succeeded',
        tries: 1,
        payin: { requestId: requestIds[i], method: PAYIN_METHODS[i], kind: 'payin', currency: payinForm(PAYIN_METHODS[i] as PayinMethod).currency },
        attempt: { state: 'succeeded', reference: requestIds[i], kind: 'payin' },
        gatewayError: null,
      });
      expect(result.payin?.payinId).toMatch(/^[0-9a-f-]{36}$/);
      expect(result.payin?.redirectUrl).toContain(`/pay/${result.payin?.payinId}`);
      expect(result.attempt.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    }
    // Exact decimals end to end: the crypto amount keeps all ten digits, fiat shows two.
    expect(results[PAYIN_METHODS.indexOf('crypto')]?.payin?.amount).toBe('0.1234567891');
    expect(results[PAYIN_METHODS.indexOf('blik')]?.payin?.amount).toBe('10.50');
    // The card that pays is on the row, masked; other methods have none.
    expect(results[PAYIN_METHODS.indexOf('credit_card')]?.payin?.card).toEqual({ brand: 'visa', maskedPan: '411111******1111', expMonth: '12', expYear: CARD_YEAR });
    expect(results[PAYIN_METHODS.indexOf('blik')]?.payin?.card).toBeNull();

    // The v2_payin_notification reaches the real listener; it is a claim (no signature, spec 5.6)...
    await waitFor(() => Promise.all(requestIds.map(payin)), (rows) => rows.every((row) => row.lastNotifiedStatus === '200'), 'every pay-in to be notified as 200');
    // ...that a status read confirms: then the ledger holds the final status, verified.
    for (const requestId of requestIds) {
      const read = await h.call('payins:read-status', { requestId });
      expect(read.read).toMatchObject({ result: 'ok', statusCode: '200', httpStatus: 200 });
      expect(read.payin).toMatchObject({ statusCode: '200', final: true, statusCategory: 'success', statusMeaning: 'Success', lastVerifiedStatus: '200', lastNotifiedStatus: '200', verification: 'verified' });
    }
    const detail = await h.call('payins:get', { requestId: requestIds[0] });
    expect(detail.statusReads.length).toBeGreaterThanOrEqual(1);
    expect(detail.statusReads.at(-1)).toMatchObject({ result: 'ok', statusCode: '200', kind: 'payin' });
    expect(detail.attempts.map((a) => a.idempotencyKey)).toEqual([results[0]?.attempt.idempotencyKey]);
  });

  it('records a +s302 decline as final with its reason, from the notification', async () => {
    const requestId = ref('decline');
    const created = await h.call('payins:create', payinForm('googlepay', { email: 'ana+s302@example.com', requestId }));
    expect(created.payin?.statusCode).toBe('100');
    expect(created.nextStep.action).toBe('wait_for_notification');
    await waitFor(() => payin(requestId), (p) => p.lastNotifiedStatus === '302', 'the decline notification');
    const { payin: row } = await h.call('payins:read-status', { payinId: created.payin?.payinId ?? undefined });
    expect(row).toMatchObject({ statusCode: '302', final: true, reasonCode: 'RISK_BLOCKED', statusCategory: 'decline', lastNotifiedStatus: '302', verification: 'verified' });
  });

  it('reads the status by payin_id of a pending pay-in and keeps it pending; a pay-in the gateway does not know is not_found', async () => {
    const requestId = ref('pending');
    const created = await h.call('payins:create', payinForm('open_banking', { requestId }));
    const read = await h.call('payins:read-status', { payinId: created.payin?.payinId ?? undefined });
    expect(read.read).toMatchObject({ result: 'ok', statusCode: '100' });
    expect(read.payin).toMatchObject({ statusCode: '100', final: false, lastVerifiedStatus: '100' });
    const missing = await h.call('payins:read-status', { requestId: 'never-created' });
    expect(missing).toMatchObject({ read: { result: 'not_found', httpStatus: 400 }, payin: null });
  });

  it('publishes payins:payin-changed as the pay-in moves', async () => {
    const { seen, stop } = pushesOn(h.core, 'payins:payin-changed');
    try {
      const requestId = ref('push');
      await h.call('payins:create', payinForm('interac', { requestId }));
      const mine = seen.filter((p) => p.requestId === requestId);
      expect(mine[0]?.statusCode).toBeNull(); // recorded before sending
      expect(mine.at(-1)?.statusCode).toBe('100');
    } finally {
      stop();
    }
  });
});

describe('validation before sending', () => {
  it('names every missing and invalid field at once and sends nothing', async () => {
    const before = await emulatorPayins(h.core);
    const requestId = ref('invalid');
    const error = await h.failure('payins:create', {
      payment_method: 'credit_card',
      request_id: requestId,
      amount: '10.123',
      currency: 'EURO',
      email: 'not-an-email',
      country: 'DEU',
      cardNum: '4111111111111112',
      cardCvv: '12',
    });
    expect(error.code).toBe('invalid_input');
    const fields = Object.keys(error.fields ?? {});
    for (const field of ['amount', 'currency', 'email', 'cardNum', 'cardCvv', 'cardHolder', 'cardExpireMonth', 'cardExpireYear', 'mobile', 'address', 'city', 'zipCode', 'state', 'birthDate', 'first_name', 'last_name', 'device_ip', 'success_url', 'pending_url', 'fail_url', 'back_url']) {
      expect(fields, field).toContain(field);
    }
    expect(error.fields?.amount).toMatch(/2 decimals/);
    expect(error.message).toContain('was not sent');
    expect(JSON.stringify(error)).not.toContain('4111111111111112');

    const cases: [unknown, string][] = [
      [{ ...payinForm('open_banking'), amount: 'ten' }, 'amount'],
      [{ ...payinForm('open_banking'), amount: '-5' }, 'amount'],
      [{ ...payinForm('crypto'), amount: '0.12345678901' }, 'amount'],
      [{ ...payinForm('open_banking'), payment_method: 'cash' }, 'payment_method'],
      [{ ...payinForm('open_banking'), payment_method: undefined }, 'payment_method'],
      [{ ...payinForm('open_banking'), cardNum: '4111111111111111', cardCvv: '123' }, 'cardNum'],
      [{ ...payinForm('credit_card'), cardExpireYear: '2001' }, 'cardExpireYear'],
      [{ ...payinForm('blik'), mobile: '   ' }, 'mobile'],
      [{ ...payinForm('interac'), country: 'DE' }, 'country'],
    ];
    for (const [input, field] of cases) {
      const refused = await h.failure('payins:create', input);
      expect(refused.code, JSON.stringify(input)).toBe('invalid_input');
      expect(Object.keys(refused.fields ?? {}), JSON.stringify(input)).toContain(field);
    }
    // The renderer cannot set what main fills in, nor send unknown keys.
    const smuggled = await h.failure('payins:create', { ...payinForm('open_banking'), notification_link: 'https://evil.example/' });
    expect(smuggled.code).toBe('invalid_input');
    expect(Object.keys(smuggled.fields ?? {})).toContain('(input)');

    expect(await emulatorPayins(h.core)).toEqual(before);
    expect((await h.failure('payins:get', { requestId })).code).toBe('not_found');
  });

  it('refuses a request_id already used in the ledger, naming it, without sending', async () => {
    const requestId = ref('twice');
    await h.call('payins:create', payinForm('open_banking', { requestId }));
    const before = await emulatorPayins(h.core);
    const again = await h.failure('payins:create', payinForm('crypto', { requestId }));
    expect(again.code).toBe('invalid_input');
    expect(again.fields?.request_id).toMatch(/already used/);
    expect(await emulatorPayins(h.core)).toEqual(before);
    expect((await h.call('payins:get', { requestId })).attempts).toHaveLength(1);
  });
});
