// Valid request bodies for every pay-in and payout method, for gateway client tests.
import type { PayinMethod, PayoutMethod } from '../../src/shared/spec/methods';
import type { PayinCreateInput, PayoutCreateInput, TokenChargeInput, TokenizationCreateInput } from '../../src/main/gateway/endpoints';

export interface TestMerchant {
  merchant_id: string;
  merchant_site_id: string;
}

export const TEST_CARD = { number: '4111111111111111', name: 'Ana Lima', expMonth: '12', expYear: String(new Date().getUTCFullYear() + 3), cvv: '123' };

const urls = (notify: string) => ({
  notification_link: notify,
  success_url: 'https://shop.example/success',
  pending_url: 'https://shop.example/pending',
  fail_url: 'https://shop.example/fail',
  back_url: 'https://shop.example/back',
});

function base(m: TestMerchant, requestId: string, notify: string) {
  return {
    merchant_id: m.merchant_id,
    merchant_site_id: m.merchant_site_id,
    currency: 'EUR',
    email: 'ana@example.com',
    request_id: requestId,
    country: 'DEU',
    device_ip: '203.0.113.7',
    first_name: 'Ana',
    last_name: 'Lima',
    ...urls(notify),
  };
}

const contact = { mobile: '+4915112345678', address: 'Hauptstr. 1', city: 'Berlin', zipCode: '10115' };
const identity = { state: 'BE', birthDate: '1990-04-01' };
const card = { cardNum: TEST_CARD.number, cardHolder: TEST_CARD.name, cardExpireMonth: TEST_CARD.expMonth, cardExpireYear: TEST_CARD.expYear, cardCvv: TEST_CARD.cvv };

const METHOD_FIELDS: Record<PayinMethod, object> = {
  credit_card: { ...contact, ...identity, ...card },
  credit_card_ftd: { ...contact, ...identity, ...card },
  open_banking: {},
  crypto: {},
  blik: { mobile: contact.mobile },
  googlepay: { ...contact, ...identity },
  applepay: { ...contact, ...identity },
  interac: contact,
};

export function payinBody(m: TestMerchant, method: PayinMethod, requestId: string, opts: { amount?: string; email?: string; notify?: string } = {}): PayinCreateInput {
  return {
    ...base(m, requestId, opts.notify ?? 'https://shop.example/notify'),
    ...METHOD_FIELDS[method],
    payment_method: method,
    amount: opts.amount ?? (method === 'crypto' ? '0.1234567891' : '10.50'),
    ...(opts.email ? { email: opts.email } : {}),
  };
}

export function tokenizationBody(m: TestMerchant, requestId: string, jwt: string, notifyUrl: string): TokenizationCreateInput {
  return { ...base(m, requestId, notifyUrl), ...contact, ...identity, payment_method: 'credit_card', amount: '25.00', merchant_jwt: jwt, consent: true, tokenization_notification_url: notifyUrl };
}

export function tokenChargeBody(m: TestMerchant, requestId: string, jwt: string, notifyUrl = 'https://shop.example/notify'): TokenChargeInput {
  return { ...base(m, requestId, notifyUrl), ...contact, ...identity, payment_method: 'credit_card', amount: '7.99', merchant_jwt: jwt, cardCvv: TEST_CARD.cvv };
}

const PAYOUT_DETAILS = {
  credit_card: { method: 'credit_card', cardNum: TEST_CARD.number, cardHolder: TEST_CARD.name, cardExpireMonth: TEST_CARD.expMonth, cardExpireYear: TEST_CARD.expYear },
  open_banking: { method: 'open_banking', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', accountHolder: 'Ana Lima' },
  crypto: { method: 'crypto', walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7', network: 'ethereum' },
  fps: { method: 'fps', sortCode: '401276', accountNumber: '12345678', accountHolder: 'Ana Lima' },
} as const;

export function payoutBody(m: TestMerchant, method: PayoutMethod, reference: string, opts: { amount?: string; email?: string; notify?: string } = {}): PayoutCreateInput {
  return {
    merchant_id: m.merchant_id,
    site_id: m.merchant_site_id,
    method,
    amount: opts.amount ?? (method === 'crypto' ? '0.0000000001' : '99.90'),
    currency: method === 'fps' ? 'GBP' : 'EUR',
    merchantReference: reference,
    country: method === 'fps' ? 'GBR' : 'DEU',
    notificationUrl: opts.notify ?? 'https://shop.example/payout-notify',
    customer: { firstName: 'Ana', lastName: 'Lima', email: opts.email ?? 'ana@example.com' },
    paymentDetails: PAYOUT_DETAILS[method],
  };
}
