// The playground's pre-filled requests pass the gateway's own validator for every method, its
// scenario tags follow the emulator's tag rules, and its JSON view round-trips amounts exactly.
import { describe, expect, it } from 'vitest';
import { PAYIN_STATUS_CODES, PAYOUT_STATUS_CODES } from '../../../src/shared/spec/codes';
import { validatePayinCreate, validatePayoutCreate } from '../../../src/shared/spec/field-rules';
import { PAYIN_METHODS, PAYOUT_METHODS } from '../../../src/shared/spec/methods';
import { LosslessNumber } from '../../../src/shared/json';
import { payinScenario, payoutScenario } from '../../../src/emulator/domain/scenario';
import { samplePayinForm, samplePayoutForm } from '../../../src/shared/spec/samples';
import { NO_SCENARIO, scenarioGroups, scenarioOf, withScenario } from '../../../src/renderer/features/playground/scenarios';
import { formToJson, getField, jsonToForm, setField } from '../../../src/renderer/features/playground/request-json';

const profileFields = { merchant_id: 'm-1', merchant_site_id: 's-1', notification_link: 'http://127.0.0.1:9/n/x' };
const asGatewayBody = (form: Record<string, unknown>) => ({ ...form, ...profileFields, amount: new LosslessNumber(String(form.amount)) });

describe('pre-filled requests', () => {
  it.each(PAYIN_METHODS)('builds a valid %s pay-in with exactly the fields the method requires', (method) => {
    const form = samplePayinForm(method);
    const result = validatePayinCreate(asGatewayBody(form));
    expect(result.details).toEqual({});
    expect(form.payment_method).toBe(method);
    expect('cardNum' in form).toBe(method === 'credit_card' || method === 'credit_card_ftd');
  });

  it.each(PAYOUT_METHODS)('builds a valid %s payout', (method) => {
    const form = samplePayoutForm(method);
    const body = { ...form, merchant_id: 'm-1', site_id: 's-1', mode: 'direct', notificationUrl: 'http://127.0.0.1:9/n/x', amount: new LosslessNumber(String(form.amount)), paymentDetails: { ...form.paymentDetails, method } };
    expect(validatePayoutCreate(body).details).toEqual({});
  });

  it('keeps the sample card in the future, whatever the date', () => {
    const form = samplePayinForm('credit_card', new Date('2031-12-31T23:00:00Z'));
    expect(form.cardExpireYear).toBe('2034');
    expect(validatePayinCreate(asGatewayBody(form), { now: new Date('2031-12-31T23:00:00Z') }).ok).toBe(true);
  });

  it('gives each sample a fresh reference', () => {
    expect(samplePayinForm('blik').request_id).not.toBe(samplePayinForm('blik').request_id);
  });
});

describe('scenario tags', () => {
  it('writes tags the emulator reads, replacing any earlier tag', () => {
    const tagged = withScenario('ana.lima@example.com', '302');
    expect(tagged).toBe('ana.lima+s302@example.com');
    expect(payinScenario(tagged)).toBe(302);
    const changed = withScenario(tagged, '200');
    expect(changed).toBe('ana.lima+s200@example.com');
    expect(withScenario(changed, null)).toBe('ana.lima@example.com');
    const payout = withScenario('ana+sC405+vip@example.com', 'P101');
    expect(payoutScenario(payout)).toBe('P101');
    expect(payout).toBe('ana+vip+sP101@example.com');
  });

  it('reads the tag back by kind', () => {
    expect(scenarioOf('ana+s517@example.com', 'payin')).toBe('517');
    expect(scenarioOf('ana+s517@example.com', 'payout')).toBeNull();
    expect(scenarioOf('ana+sc405@example.com', 'payout')).toBe('C405');
    expect(scenarioOf('ana+s3021@example.com', 'payin')).toBeNull();
  });

  it('offers every code of 3.1 and 3.2 plus "none"', () => {
    const values = (groups: ReturnType<typeof scenarioGroups>) => groups.flatMap((g) => g.items.map((i) => i.value));
    expect(values(scenarioGroups('payin'))).toEqual([NO_SCENARIO, ...PAYIN_STATUS_CODES.map(String)]);
    expect(values(scenarioGroups('payout'))).toEqual([NO_SCENARIO, ...PAYOUT_STATUS_CODES]);
    expect(values(scenarioGroups('payin', true)).sort()).toEqual([NO_SCENARIO, ...PAYIN_STATUS_CODES.map(String)].sort());
  });
});

describe('the JSON view', () => {
  it('shows the amount as an exact JSON number and reads it back as text', () => {
    const text = formToJson({ amount: '0.1000000001', currency: 'EUR', cardCvv: '123' }, ['cardCvv']);
    expect(text).toContain('"amount": 0.1000000001');
    expect(text).not.toContain('123');
    expect(jsonToForm(text)).toEqual({ ok: true, form: { amount: '0.1000000001', currency: 'EUR' } });
  });

  it('reads nested payout objects and names a field of the wrong type', () => {
    expect(jsonToForm('{"customer":{"email":"a@b.co"}}')).toEqual({ ok: true, form: { customer: { email: 'a@b.co' } } });
    expect(jsonToForm('{"customer":{"email":true}}')).toEqual({ ok: false, message: 'customer.email must be text or a number' });
    expect(jsonToForm('[1]')).toMatchObject({ ok: false });
    expect(jsonToForm('{"amount":')).toMatchObject({ ok: false, message: expect.stringMatching(/^Not valid JSON/) });
  });

  it('gets and sets dotted paths without touching the original', () => {
    const form = { customer: { email: 'a@b.co' } };
    const next = setField(form, 'customer.firstName', 'Ana');
    expect(getField(next, 'customer.firstName')).toBe('Ana');
    expect(getField(form, 'customer.firstName')).toBe('');
  });
});
