// Valid, coherent sample requests for every method: the playground's pre-filled forms, the batch
// template, and the fixtures of every test harness and benchmark. Which fields a method needs is
// the field-rule tables' (form-fields.ts); the values are well-known test data that pass the same
// validator the gateway runs (Luhn-valid test card, future expiry, ISO codes, a check-digit-valid
// IBAN), and each sample is one customer: a national method's customer lives in its country, with
// its currency, phone and address (an interac customer is Canadian, a blik one Polish, an fps one
// British); every other method's is German. A unit test holds every sample to the validator and to
// that coherence.
import type { PayinCreateForm, PayoutCreateForm } from '../contract/payments';
import { PAYIN_CARD_FIELDS } from './field-rules';
import { payinFormRules, payoutDetailFields } from './form-fields';
import type { PayinMethod, PayoutMethod, TOKEN_PAYIN_METHODS } from './methods';

/** Visa's public test number: passes Luhn, charges nothing anywhere. */
export const SAMPLE_CARD_NUMBER = '4111111111111111';
export const SAMPLE_CARD_HOLDER = 'Ana Lima';
export const SAMPLE_CVV = '123';

export interface SampleCard {
  cardNum: string;
  cardHolder: string;
  cardExpireMonth: string;
  cardExpireYear: string;
}

/** A test card expiring in December three years from `now`, so the sample never goes stale. */
export function sampleCard(now: Date = new Date()): SampleCard {
  return { cardNum: SAMPLE_CARD_NUMBER, cardHolder: SAMPLE_CARD_HOLDER, cardExpireMonth: '12', cardExpireYear: String(now.getUTCFullYear() + 3) };
}

/** Where a sample customer lives: ISO 3166-1 alpha-3 country, its ISO 4217 currency, a phone and an address there. */
export interface SampleLocale {
  country: string;
  currency: string;
  mobile: string;
  address: string;
  city: string;
  zipCode: string;
  state: string;
}

export const SAMPLE_LOCALES = {
  DEU: { country: 'DEU', currency: 'EUR', mobile: '+4915112345678', address: 'Hauptstr. 1', city: 'Berlin', zipCode: '10115', state: 'BE' },
  POL: { country: 'POL', currency: 'PLN', mobile: '+48512345678', address: 'ul. Krucza 1', city: 'Warszawa', zipCode: '00-526', state: 'MZ' },
  CAN: { country: 'CAN', currency: 'CAD', mobile: '+14165550123', address: '100 Queen St W', city: 'Toronto', zipCode: 'M5H 2N2', state: 'ON' },
  GBR: { country: 'GBR', currency: 'GBP', mobile: '+447700900123', address: '10 Downing St', city: 'London', zipCode: 'SW1A 2AA', state: 'ENG' },
} as const satisfies Record<string, SampleLocale>;

/** The country of each method's sample customer: a national method's own, Germany for the others. */
export const METHOD_HOME: Readonly<Record<PayinMethod | PayoutMethod, keyof typeof SAMPLE_LOCALES>> = {
  credit_card: 'DEU',
  credit_card_ftd: 'DEU',
  open_banking: 'DEU',
  crypto: 'DEU',
  blik: 'POL',
  googlepay: 'DEU',
  applepay: 'DEU',
  interac: 'CAN',
  fps: 'GBR',
};

export function sampleLocale(method: PayinMethod | PayoutMethod): SampleLocale {
  return SAMPLE_LOCALES[METHOD_HOME[method]];
}

/** The customer, whatever the method. */
const PERSON = { first_name: 'Ana', last_name: 'Lima', email: 'ana.lima@example.com', device_ip: '203.0.113.10', birthDate: '1990-04-15' };

const SHOP_URLS = {
  success_url: 'https://shop.example/success',
  pending_url: 'https://shop.example/pending',
  fail_url: 'https://shop.example/fail',
  back_url: 'https://shop.example/back',
};

/** A small amount of the method's scale (crypto has up to 10 decimals). */
export function sampleAmount(method: PayinMethod | PayoutMethod, kind: 'payin' | 'payout' = 'payin'): string {
  return method === 'crypto' ? '0.0025' : kind === 'payin' ? '10.00' : '25.00';
}

/** A fresh merchant reference: a request_id or merchantReference names one attempt and is never reused. */
export function newReference(prefix: string): string {
  return `${prefix}-${crypto.randomUUID()}`;
}

/** A complete, valid pay-in form for `method`: every field the method requires, nothing else (main adds the profile's). */
export function samplePayinForm(method: PayinMethod, now: Date = new Date()): PayinCreateForm {
  const values: Record<string, string> = {
    ...PERSON,
    ...SHOP_URLS,
    ...sampleLocale(method),
    ...sampleCard(now),
    cardCvv: SAMPLE_CVV,
    amount: sampleAmount(method),
    request_id: newReference('pg'),
  };
  const form: Record<string, string> = { payment_method: method };
  for (const rule of payinFormRules(method)) {
    const value = values[rule.field];
    if (value !== undefined) form[rule.field] = value;
  }
  return form as PayinCreateForm;
}

/** A card method's pay-in form without the card: what a tokenization or token charge sends beside merchant_jwt. */
export function sampleCardlessPayinForm(method: (typeof TOKEN_PAYIN_METHODS)[number] = 'credit_card', now: Date = new Date()): PayinCreateForm {
  const form: Record<string, string | undefined> = samplePayinForm(method, now);
  for (const field of PAYIN_CARD_FIELDS) delete form[field];
  return form as PayinCreateForm;
}

/** What a payout's destination is, per method: the sample card, a German IBAN, an Ethereum wallet, a UK account. */
const DESTINATIONS: Record<Exclude<PayoutMethod, 'credit_card'>, Record<string, string>> = {
  open_banking: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', accountHolder: SAMPLE_CARD_HOLDER },
  crypto: { walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7', network: 'ethereum' },
  fps: { sortCode: '401276', accountNumber: '12345678', accountHolder: SAMPLE_CARD_HOLDER },
};

/** A complete, valid payout form for `method` (main adds the profile's fields, mode and paymentDetails.method). */
export function samplePayoutForm(method: PayoutMethod, now: Date = new Date()): PayoutCreateForm {
  const locale = sampleLocale(method);
  const values: Record<string, string> = method === 'credit_card' ? { ...sampleCard(now) } : DESTINATIONS[method];
  return {
    method,
    amount: sampleAmount(method, 'payout'),
    currency: locale.currency,
    country: locale.country,
    merchantReference: newReference('po'),
    customer: { firstName: PERSON.first_name, lastName: PERSON.last_name, email: PERSON.email, phone: locale.mobile },
    paymentDetails: Object.fromEntries(payoutDetailFields(method).map((field) => [field, values[field] ?? ''])),
  };
}
