// Valid requests for every method, for every test harness and benchmark: the shared samples
// (src/shared/spec/samples.ts: the fields each method needs come from the rule tables, the values
// are one coherent customer per method), with what a test varies given by the caller: amount,
// e-mail, reference, notification URL, profile. Nothing here lists a method's fields; a harness
// that needs a request shape of its own builds it from these.
import type { PayinCreateForm, PayoutCreateForm, TokenizeForm } from '../../src/shared/contract';
import type { PayinCreateInput, PayoutCreateInput, TokenChargeInput, TokenizationCreateInput } from '../../src/main/gateway/endpoints';
import type { PayinMethod, PayoutMethod } from '../../src/shared/spec/methods';
import { SAMPLE_CVV, sampleCard, sampleCardlessPayinForm, samplePayinForm, samplePayoutForm } from '../../src/shared/spec/samples';

export interface TestMerchant {
  merchant_id: string;
  merchant_site_id: string;
}

/** The sample card, as form fields (cardNum, cardHolder, cardExpireMonth, cardExpireYear). */
export const card = sampleCard();
export const TEST_PAN = card.cardNum;
export const CARD_YEAR = card.cardExpireYear;
/** The sample card as a merchant JWT's card (op=tokenize), with its CVV. */
export const TEST_CARD = { number: card.cardNum, name: card.cardHolder, expMonth: card.cardExpireMonth, expYear: card.cardExpireYear, cvv: SAMPLE_CVV };

/**
 * The tests' default amounts: fiat with two decimals, crypto with all ten (so exactness is always
 * on trial), a payout's the smallest a crypto payout can be.
 */
export function testAmount(method: PayinMethod | PayoutMethod, kind: 'payin' | 'payout' = 'payin'): string {
  if (method === 'crypto') return kind === 'payin' ? '0.1234567891' : '0.0000000001';
  return kind === 'payin' ? '10.50' : '99.90';
}

interface Vary {
  email?: string;
  amount?: string;
  profileId?: string;
}
/** Without a request_id, main gives the pay-in a fresh one. */
export type PayinFormOptions = Vary & { requestId?: string };
/** Without a merchantReference, main gives the payout a fresh one. */
export type PayoutFormOptions = Vary & { reference?: string };

function payinVaried(form: PayinCreateForm, method: PayinMethod, opts: PayinFormOptions): PayinCreateForm {
  const { request_id: _fresh, ...rest } = form;
  return {
    ...rest,
    amount: opts.amount ?? testAmount(method),
    ...(opts.email ? { email: opts.email } : {}),
    ...(opts.requestId ? { request_id: opts.requestId } : {}),
    ...(opts.profileId ? { profileId: opts.profileId } : {}),
  };
}

/** A valid pay-in form (what the pay-in screen or the playground sends) for `method`. */
export function payinForm(method: PayinMethod, opts: PayinFormOptions = {}): PayinCreateForm {
  return payinVaried(samplePayinForm(method), method, opts);
}

/** A card pay-in form without the card: the customer part of a tokenize or token charge form. */
export function cardlessPayinForm(opts: PayinFormOptions = {}): PayinCreateForm {
  return payinVaried(sampleCardlessPayinForm(), 'credit_card', opts);
}

/** A valid tokenize form: the customer, the sample card (it goes only into the JWT) and consent. */
export function tokenizeForm(opts: PayinFormOptions = {}): TokenizeForm {
  return { ...cardlessPayinForm(opts), ...card, consent: true };
}

/** A valid payout form (what New payout, the playground or a CSV row sends) for `method`. */
export function payoutForm(method: PayoutMethod, opts: PayoutFormOptions = {}): PayoutCreateForm {
  const { merchantReference: _fresh, customer, ...form } = samplePayoutForm(method);
  return {
    ...form,
    amount: opts.amount ?? testAmount(method, 'payout'),
    customer: { ...customer, ...(opts.email ? { email: opts.email } : {}) },
    ...(opts.reference ? { merchantReference: opts.reference } : {}),
    ...(opts.profileId ? { profileId: opts.profileId } : {}),
  };
}

// ---- gateway bodies: the forms completed as main completes them from a profile ------------------

const SHOP_NOTIFY = 'https://shop.example/notify';

export interface BodyOptions {
  amount?: string;
  email?: string;
  notify?: string;
}

export function payinBody(m: TestMerchant, method: PayinMethod, requestId: string, opts: BodyOptions = {}): PayinCreateInput {
  const form = payinForm(method, { amount: opts.amount, email: opts.email, requestId });
  return { ...form, ...m, notification_link: opts.notify ?? SHOP_NOTIFY, payment_method: method, amount: form.amount ?? '' } as PayinCreateInput;
}

export function tokenizationBody(m: TestMerchant, requestId: string, jwt: string, notifyUrl: string): TokenizationCreateInput {
  const form = cardlessPayinForm({ requestId, amount: '25.00' });
  return { ...form, ...m, notification_link: notifyUrl, merchant_jwt: jwt, consent: true, tokenization_notification_url: notifyUrl } as TokenizationCreateInput;
}

export function tokenChargeBody(m: TestMerchant, requestId: string, jwt: string, notifyUrl = SHOP_NOTIFY): TokenChargeInput {
  const form = cardlessPayinForm({ requestId, amount: '7.99' });
  return { ...form, ...m, notification_link: notifyUrl, merchant_jwt: jwt, cardCvv: SAMPLE_CVV } as TokenChargeInput;
}

export function payoutBody(m: TestMerchant, method: PayoutMethod, reference: string, opts: BodyOptions = {}): PayoutCreateInput {
  const form = payoutForm(method, { amount: opts.amount, email: opts.email, reference });
  return {
    ...form,
    merchant_id: m.merchant_id,
    site_id: m.merchant_site_id,
    mode: 'direct',
    notificationUrl: opts.notify ?? 'https://shop.example/payout-notify',
    paymentDetails: { ...form.paymentDetails, method },
  } as PayoutCreateInput;
}
