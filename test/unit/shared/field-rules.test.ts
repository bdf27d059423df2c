// The shared validators, called directly as the app's forms call them.
import { describe, expect, test } from 'vitest';
import { LosslessNumber } from '../../../src/shared/json';
import {
  ISSUE_PRECEDENCE,
  PAYIN_FIELD_RULES,
  PAYOUT_FIELD_RULES,
  TOKEN_CHARGE_FIELD_RULES,
  TOKENIZATION_FIELD_RULES,
  payinFieldsFor,
  validatePayinCreate,
  validatePayinStatusRead,
  validatePayoutCreate,
  validateTokenChargeCreate,
  validateTokenizationCreate,
  validateTokenizeClaims,
} from '../../../src/shared/spec/field-rules';
import { CHECKS, cardBrand } from '../../../src/shared/spec/field-checks';
import { REASON_CODES } from '../../../src/shared/spec/codes';

const NOW = Date.parse('2030-06-15T12:00:00Z');

const card = {
  merchant_id: 'm',
  merchant_site_id: 's',
  payment_method: 'credit_card',
  amount: new LosslessNumber('19.99'),
  currency: 'EUR',
  email: 'a@b.co',
  request_id: 'r1',
  country: 'PRT',
  notification_link: 'https://m.example/n',
  success_url: 'https://m.example/s',
  pending_url: 'https://m.example/p',
  fail_url: 'https://m.example/f',
  back_url: 'https://m.example/b',
  device_ip: '198.51.100.4',
  first_name: 'Ana',
  last_name: 'Lima',
  mobile: '+351 912 345 678',
  address: 'Rua 1',
  city: 'Lisboa',
  zipCode: '1000-001',
  state: 'LX',
  birthDate: '1991-02-28',
  cardNum: '5555555555554444',
  cardHolder: 'Ana Lima',
  cardExpireMonth: '06',
  cardExpireYear: '2030',
  cardCvv: '1234',
};

describe('pay-in create', () => {
  test('a complete body passes; the same month as now is not expired', () => {
    expect(validatePayinCreate(card, { now: NOW, siteId: 's' })).toMatchObject({ ok: true, issues: [], primary: null, details: {} });
  });

  test('returns every issue with its codes, and the primary one by precedence', () => {
    const r = validatePayinCreate({ ...card, cardCvv: '1', cardExpireMonth: '05', email: 'nope', amount: undefined }, { now: NOW });
    expect(r.issues.map((i) => [i.field, i.status_code, i.reason_code])).toEqual([
      ['amount', 503, 'MISSING_AMOUNT'],
      ['email', 512, 'INVALID_PARAMS'],
      ['cardCvv', 317, 'INVALID_CVV'],
      ['cardExpireYear', 318, 'INVALID_EXPIRY'],
      ['cardExpireMonth', 318, 'INVALID_EXPIRY'],
    ]);
    expect(r.primary?.reason_code).toBe('MISSING_AMOUNT');
    expect(Object.keys(r.details).sort()).toEqual(['amount', 'cardCvv', 'cardExpireMonth', 'cardExpireYear', 'email']);
  });

  test('the site check applies only when the site id is known', () => {
    expect(validatePayinCreate({ ...card, merchant_site_id: 'x' }, { now: NOW }).ok).toBe(true);
    expect(validatePayinCreate({ ...card, merchant_site_id: 'x' }, { now: NOW, siteId: 's' }).primary).toMatchObject({ status_code: 505, reason_code: 'INVALID_SITE' });
  });

  test('a plain JS number amount (from a form) is checked the same way', () => {
    expect(validatePayinCreate({ ...card, amount: 19.99 }, { now: NOW }).ok).toBe(true);
    expect(validatePayinCreate({ ...card, amount: 19.999 }, { now: NOW }).primary?.status_code).toBe(504);
  });

  test('not an object is INVALID_REQUEST on the body', () => {
    expect(validatePayinCreate([], { now: NOW }).primary).toMatchObject({ field: '(body)', reason_code: 'INVALID_REQUEST' });
  });

  test('precedence lists only reason codes of 7.3', () => {
    for (const r of ISSUE_PRECEDENCE) expect(REASON_CODES).toContain(r);
  });

  test('every rule names codes of the catalogue and a rule text', () => {
    for (const rule of [...PAYIN_FIELD_RULES, ...TOKENIZATION_FIELD_RULES, ...TOKEN_CHARGE_FIELD_RULES, ...PAYOUT_FIELD_RULES]) {
      expect(REASON_CODES).toContain(rule.missing.reason_code);
      expect(REASON_CODES).toContain(rule.invalid.reason_code);
      expect(rule.rule.length).toBeGreaterThan(3);
    }
  });

  test('forms get the fields of a method from the same table', () => {
    expect(payinFieldsFor('blik').map((r) => r.field)).toContain('mobile');
    expect(payinFieldsFor('blik').map((r) => r.field)).not.toContain('address');
    expect(payinFieldsFor('crypto')).toHaveLength(16);
  });
});

describe('tokenization, token charge, claims, status read', () => {
  const cardless = Object.fromEntries(Object.entries(card).filter(([k]) => !k.startsWith('card')));
  test('tokenization needs merchant_jwt, consent=true and the notification URL, and refuses card fields', () => {
    const ok = validateTokenizationCreate({ ...cardless, merchant_jwt: 'a.b.c', consent: true, tokenization_notification_url: 'https://m.example/t' }, { now: NOW });
    expect(ok.ok).toBe(true);
    const bad = validateTokenizationCreate({ ...cardless, cardCvv: '123', consent: false }, { now: NOW });
    expect(Object.keys(bad.details).sort()).toEqual(['cardCvv', 'consent', 'merchant_jwt', 'tokenization_notification_url']);
    expect(bad.issues.find((i) => i.field === 'cardCvv')).toMatchObject({ problem: 'forbidden', status_code: 512, reason_code: 'INVALID_PARAMS' });
  });

  test('token charge needs cardCvv and merchant_jwt', () => {
    const r = validateTokenChargeCreate(cardless, { now: NOW });
    expect(Object.keys(r.details).sort()).toEqual(['cardCvv', 'merchant_jwt']);
  });

  test('tokenize claims are card rules under claim names', () => {
    const r = validateTokenizeClaims({ cardholder_number: '4111111111111111', cardholder_name: 'X', cardholder_exp_month: '05', cardholder_exp_year: '2030' }, { now: NOW });
    expect(r.primary).toMatchObject({ status_code: 318, reason_code: 'INVALID_EXPIRY' });
  });

  test('status read needs payin_id or request_id', () => {
    expect(validatePayinStatusRead({ merchant_id: 'm', request_id: 'r' }).ok).toBe(true);
    expect(Object.keys(validatePayinStatusRead({ merchant_id: 'm' }).details)).toEqual(['payin_id', 'request_id']);
  });
});

describe('payouts', () => {
  const fps = {
    merchant_id: 'm',
    site_id: 's',
    method: 'fps',
    amount: 5,
    currency: 'GBP',
    merchantReference: 'ref',
    country: 'GBR',
    notificationUrl: 'https://m.example/po',
    customer: { firstName: 'A', lastName: 'B', email: 'a@b.co' },
    paymentDetails: { method: 'fps', sortCode: '123456', accountNumber: '12345678', accountHolder: 'A B' },
  };
  test('a complete fps payout passes; every failure is C402', () => {
    expect(validatePayoutCreate(fps, { now: NOW }).ok).toBe(true);
    const r = validatePayoutCreate({ ...fps, paymentDetails: { method: 'fps' }, customer: 'x' }, { now: NOW });
    expect(new Set(r.issues.map((i) => i.status_code))).toEqual(new Set(['C402']));
    expect(Object.keys(r.details).sort()).toEqual(['customer', 'paymentDetails.accountHolder', 'paymentDetails.accountNumber', 'paymentDetails.sortCode']);
  });

  test('IBAN check digits are verified', () => {
    expect(CHECKS.iban('DE89370400440532013000', {} as never)).toBeNull();
    expect(CHECKS.iban('DE89370400440532013001', {} as never)).not.toBeNull();
  });
});

describe('checks backed by libraries', () => {
  const ctx = { parent: {}, method: undefined, siteId: undefined, values: undefined, now: NOW };
  test('ISO 4217, ISO 3166-1 alpha-3, Luhn and brand', () => {
    expect(CHECKS.currency('CHF', ctx)).toBeNull();
    expect(CHECKS.currency('ABC', ctx)).not.toBeNull();
    expect(CHECKS.country('CHE', ctx)).toBeNull();
    expect(CHECKS.country('CH', ctx)).not.toBeNull();
    expect(CHECKS.card_number('378282246310005', ctx)).toBeNull();
    expect(cardBrand('378282246310005')).toBe('american-express');
    expect(cardBrand('5555555555554444')).toBe('mastercard');
  });
});
