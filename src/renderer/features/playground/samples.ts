// Valid, pre-filled requests for every method, built from the shared field rules: the fields a
// method needs are payinFieldsFor / PAYOUT_FIELD_RULES, the values are well-known test data that
// pass the same validator the gateway runs (Luhn-valid test card, future expiry, ISO codes,
// check-digit-valid IBAN). Plain TypeScript so a unit test can prove every sample is valid.
import type { PayinCreateForm, PayoutCreateForm } from '../../../shared/contract';
import { PAYOUT_FIELD_RULES, payinFieldsFor } from '../../../shared/spec/field-rules';
import type { PayinMethod, PayoutMethod } from '../../../shared/spec/methods';

/** Filled in by main from the active profile; the form never sends them. */
export const PROFILE_PAYIN_FIELDS = ['merchant_id', 'merchant_site_id', 'notification_link'] as const;
export const PROFILE_PAYOUT_FIELDS = ['merchant_id', 'site_id', 'mode', 'notificationUrl'] as const;

/** Visa's public test number: passes Luhn, charges nothing anywhere. */
export const TEST_CARD_NUMBER = '4111111111111111';
export const TEST_CARD_HOLDER = 'Ana Lima';
export const TEST_CVV = '123';

export interface SampleCard {
  cardNum: string;
  cardHolder: string;
  cardExpireMonth: string;
  cardExpireYear: string;
}

/** A test card expiring in December three years from `now`, so the sample never goes stale. */
export function sampleCard(now: Date = new Date()): SampleCard {
  return { cardNum: TEST_CARD_NUMBER, cardHolder: TEST_CARD_HOLDER, cardExpireMonth: '12', cardExpireYear: String(now.getUTCFullYear() + 3) };
}

/** Local currency and country where a method is national; EUR / Germany elsewhere. */
const LOCALE: Partial<Record<PayinMethod | PayoutMethod, { currency: string; country: string }>> = {
  blik: { currency: 'PLN', country: 'POL' },
  interac: { currency: 'CAD', country: 'CAN' },
  fps: { currency: 'GBP', country: 'GBR' },
};

const PAYIN_VALUES: Record<string, string> = {
  email: 'ana.lima@example.com',
  success_url: 'https://shop.example/pay/success',
  pending_url: 'https://shop.example/pay/pending',
  fail_url: 'https://shop.example/pay/fail',
  back_url: 'https://shop.example/cart',
  device_ip: '203.0.113.10',
  first_name: 'Ana',
  last_name: 'Lima',
  mobile: '+4915112345678',
  address: 'Hauptstr. 1',
  city: 'Berlin',
  zipCode: '10115',
  state: 'BE',
  birthDate: '1990-04-15',
  cardCvv: TEST_CVV,
};

/** A fresh merchant reference: a request_id names one attempt and is never reused. */
export function newReference(prefix: string): string {
  return `${prefix}-${crypto.randomUUID()}`;
}

/** A complete, valid pay-in form for `method` (every field the method requires, nothing else). */
export function samplePayinForm(method: PayinMethod, now: Date = new Date()): PayinCreateForm {
  const card = sampleCard(now);
  const locale = LOCALE[method] ?? { currency: 'EUR', country: 'DEU' };
  const values: Record<string, string> = {
    ...PAYIN_VALUES,
    ...card,
    ...locale,
    payment_method: method,
    amount: method === 'crypto' ? '0.0025' : '10.00',
    request_id: newReference('pg'),
  };
  const form: Record<string, string> = {};
  for (const rule of payinFieldsFor(method)) {
    if ((PROFILE_PAYIN_FIELDS as readonly string[]).includes(rule.field)) continue;
    const value = values[rule.field];
    if (value !== undefined) form[rule.field] = value;
  }
  return form as PayinCreateForm;
}

const DETAILS: Record<PayoutMethod, NonNullable<PayoutCreateForm['paymentDetails']>> = {
  credit_card: {},
  open_banking: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', accountHolder: TEST_CARD_HOLDER },
  crypto: { walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7', network: 'ethereum' },
  fps: { sortCode: '401276', accountNumber: '12345678', accountHolder: TEST_CARD_HOLDER },
};

/** The paymentDetails fields a payout method requires (from the shared rules), without `method`. */
export function payoutDetailFields(method: string): string[] {
  return PAYOUT_FIELD_RULES.filter((r) => r.field.startsWith('paymentDetails.') && typeof r.required === 'object' && r.required.methods.includes(method)).map((r) =>
    r.field.slice('paymentDetails.'.length),
  );
}

/** A complete, valid payout form for `method`. */
export function samplePayoutForm(method: PayoutMethod, now: Date = new Date()): PayoutCreateForm {
  const locale = LOCALE[method] ?? { currency: 'EUR', country: 'DEU' };
  const details = method === 'credit_card' ? { ...sampleCard(now) } : { ...DETAILS[method] };
  return {
    method,
    amount: method === 'crypto' ? '0.0025' : '25.00',
    currency: locale.currency,
    country: locale.country,
    merchantReference: newReference('po'),
    customer: { firstName: 'Ana', lastName: 'Lima', email: 'ana.lima@example.com', phone: '+4915112345678' },
    paymentDetails: details,
  };
}
