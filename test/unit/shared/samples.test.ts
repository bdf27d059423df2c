// The sample requests (playground, batch template, test fixtures) pass the gateway's own
// validator for every method, carry exactly the fields the method requires, and are each one
// coherent customer: a national method's customer lives in its country, pays in its currency and
// has a phone there (an interac sample is a Canadian customer).
import { describe, expect, it } from 'vitest';
import { LosslessNumber } from '../../../src/shared/json';
import { validatePayinCreate, validatePayoutCreate } from '../../../src/shared/spec/field-rules';
import { payinFormRules, payoutDetailFields } from '../../../src/shared/spec/form-fields';
import { PAYIN_METHODS, PAYOUT_METHODS, type PayinMethod, type PayoutMethod } from '../../../src/shared/spec/methods';
import { sampleCardlessPayinForm, samplePayinForm, samplePayoutForm } from '../../../src/shared/spec/samples';
import { guessMapping, parseCsvText, payoutTemplateCsv, validateRows } from '../../../src/renderer/features/payouts/csv';

// Written out here, independently of the samples: where each method's customer lives.
const HOME: Record<PayinMethod | PayoutMethod, { country: string; currency: string; dialling: string }> = {
  credit_card: { country: 'DEU', currency: 'EUR', dialling: '+49' },
  credit_card_ftd: { country: 'DEU', currency: 'EUR', dialling: '+49' },
  open_banking: { country: 'DEU', currency: 'EUR', dialling: '+49' },
  crypto: { country: 'DEU', currency: 'EUR', dialling: '+49' },
  blik: { country: 'POL', currency: 'PLN', dialling: '+48' },
  googlepay: { country: 'DEU', currency: 'EUR', dialling: '+49' },
  applepay: { country: 'DEU', currency: 'EUR', dialling: '+49' },
  interac: { country: 'CAN', currency: 'CAD', dialling: '+1' },
  fps: { country: 'GBR', currency: 'GBP', dialling: '+44' },
};
// Postal codes as each country writes them.
const POSTCODE: Record<string, RegExp> = { DEU: /^\d{5}$/, POL: /^\d{2}-\d{3}$/, CAN: /^[A-Z]\d[A-Z] \d[A-Z]\d$/, GBR: /^[A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}$/ };

const profile = { merchant_id: 'm-1', merchant_site_id: 's-1', notification_link: 'http://127.0.0.1:9/n/x' };
const NOW = new Date('2026-03-01T10:00:00Z');

describe('sample pay-ins', () => {
  it.each(PAYIN_METHODS)('%s: valid, with exactly the fields the method requires', (method) => {
    const form = samplePayinForm(method, NOW) as Record<string, string>;
    expect(validatePayinCreate({ ...form, ...profile, amount: new LosslessNumber(form.amount ?? '') }, { now: NOW }).details).toEqual({});
    expect(Object.keys(form).sort()).toEqual(['payment_method', ...payinFormRules(method).map((r) => r.field)].sort());
  });

  it.each(PAYIN_METHODS)('%s: one coherent customer (country, currency, phone, postcode)', (method) => {
    const form = samplePayinForm(method, NOW);
    const home = HOME[method];
    expect(form).toMatchObject({ country: home.country, currency: home.currency });
    if (form.mobile !== undefined) expect(form.mobile.startsWith(home.dialling), form.mobile).toBe(true);
    if (form.zipCode !== undefined) expect(form.zipCode).toMatch(POSTCODE[home.country] as RegExp);
  });

  it('an interac customer is Canadian, a blik one Polish', () => {
    expect(samplePayinForm('interac', NOW)).toMatchObject({ country: 'CAN', currency: 'CAD', mobile: '+14165550123', city: 'Toronto', zipCode: 'M5H 2N2' });
    expect(samplePayinForm('blik', NOW)).toMatchObject({ country: 'POL', currency: 'PLN', mobile: '+48512345678' });
  });

  it('a tokenization or token charge sample is the card pay-in without its card', () => {
    const form = sampleCardlessPayinForm('credit_card', NOW);
    expect(Object.keys(form).filter((k) => k.startsWith('card'))).toEqual([]);
    expect(form).toMatchObject({ payment_method: 'credit_card', country: 'DEU', currency: 'EUR', address: 'Hauptstr. 1' });
  });
});

describe('sample payouts', () => {
  it.each(PAYOUT_METHODS)('%s: valid, with the method’s destination and a coherent customer', (method) => {
    const form = samplePayoutForm(method, NOW);
    const body = { ...form, merchant_id: 'm-1', site_id: 's-1', mode: 'direct', notificationUrl: profile.notification_link, amount: new LosslessNumber(form.amount ?? ''), paymentDetails: { ...form.paymentDetails, method } };
    expect(validatePayoutCreate(body, { now: NOW }).details).toEqual({});
    expect(Object.keys(form.paymentDetails ?? {})).toEqual(payoutDetailFields(method));
    const home = HOME[method];
    expect(form).toMatchObject({ country: home.country, currency: home.currency });
    expect(form.customer?.phone?.startsWith(home.dialling)).toBe(true);
  });

  it('an fps payout goes to a British account (sort code, account number) in GBP', () => {
    expect(samplePayoutForm('fps', NOW)).toMatchObject({ currency: 'GBP', country: 'GBR', paymentDetails: { sortCode: expect.stringMatching(/^\d{6}$/), accountNumber: expect.stringMatching(/^\d{8}$/) } });
  });
});

describe('the batch template', () => {
  it('names every mappable field and holds one valid row per batchable method, read back by the mapping guess', async () => {
    const csv = parseCsvText('payouts-template.csv', payoutTemplateCsv());
    const mapping = guessMapping(csv.headers);
    expect(Object.values(mapping.columns).every((column) => column !== null)).toBe(true);
    const rows = await validateRows(csv, mapping, { environment: 'local', limits: null }, () => {}, new AbortController().signal);
    expect(rows.map((r) => r.method)).toEqual(['open_banking', 'crypto', 'fps']);
    for (const row of rows) expect(row.problems, row.method).toEqual({});
    expect(rows.map((r) => r.form.currency)).toEqual(['EUR', 'EUR', 'GBP']);
  });
});
