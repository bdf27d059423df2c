import { describe, expect, it } from 'vitest';
import { prepareBody, requestHash } from '../../../src/main/gateway/attempt-body';
import { maskPan, sanitizeRequest } from '../../../src/shared/redact';
import { jsonAmount, serializeCreateBody } from '../../../src/main/gateway/serialize';
import { LosslessNumber } from '../../../src/shared/json';
import { TEST_CARD, payinBody, payoutBody, tokenChargeBody, tokenizationBody } from '../../helpers/gateway-bodies';

const m = { merchant_id: 'mer_1', merchant_site_id: 'site_1' };

describe('maskPan', () => {
  it('keeps first 6 and last 4 digits', () => {
    expect(maskPan('4111111111111111')).toBe('411111******1111');
    expect(maskPan('4111 1111 1111 1111')).toBe('411111******1111');
    expect(maskPan('4111111111111111111')).toBe('411111*********1111');
  });

  it('is idempotent: sanitizing a sanitized body changes nothing', () => {
    expect(maskPan('411111******1111')).toBe('411111******1111');
    const once = sanitizeRequest(payinBody(m, 'credit_card', 'r1')).body;
    expect(sanitizeRequest(once).body).toEqual(once);
  });

  it('masks everything when 6 + 4 would reveal (nearly) the whole number', () => {
    expect(maskPan('411111111111')).toBe('************');
    expect(maskPan('12345')).toBe('*****');
    expect(maskPan('not a number')).toBe('************');
  });
});

describe('sanitizeRequest', () => {
  it('masks the card number and removes the CVV of a card pay-in; such a body is not replayable', () => {
    const { body, replayable } = sanitizeRequest(payinBody(m, 'credit_card', 'r1'));
    expect(body.cardNum).toBe('411111******1111');
    expect(body.cardCvv).toBe('[redacted]');
    expect(body.cardHolder).toBe(TEST_CARD.name);
    expect(replayable).toBe(false);
    expect(JSON.stringify(body)).not.toContain(TEST_CARD.number);
  });

  it('removes merchant_jwt (its payload is readable card data) and the CVV of token charges', () => {
    const tokenization = sanitizeRequest(tokenizationBody(m, 'r1', 'eyJ.eyJ.sig', 'https://x.example/t'));
    expect(tokenization.body.merchant_jwt).toBe('[redacted]');
    expect(tokenization.replayable).toBe(false);
    const charge = sanitizeRequest(tokenChargeBody(m, 'r2', 'eyJ.eyJ.sig'));
    expect(charge.body).toMatchObject({ merchant_jwt: '[redacted]', cardCvv: '[redacted]' });
  });

  it('masks the card number of a credit_card payout', () => {
    const { body, replayable } = sanitizeRequest(payoutBody(m, 'credit_card', 'p1'));
    expect((body.paymentDetails as Record<string, unknown>).cardNum).toBe('411111******1111');
    expect(replayable).toBe(false);
  });

  it.each(['open_banking', 'crypto', 'blik', 'googlepay', 'applepay', 'interac'] as const)('leaves a %s pay-in intact and replayable', (method) => {
    const original = payinBody(m, method, 'r1');
    const { body, replayable } = sanitizeRequest(original);
    expect(body).toEqual(original);
    expect(replayable).toBe(true);
  });

  it.each(['open_banking', 'crypto', 'fps'] as const)('leaves a %s payout replayable', (method) => {
    expect(sanitizeRequest(payoutBody(m, method, 'p1')).replayable).toBe(true);
  });
});

describe('exact amounts in request bodies', () => {
  it('writes the amount with exactly the given decimal digits, as a JSON number', () => {
    const amountText = (text: string) => /"amount":([^,}]*)/.exec(text)?.[1];
    expect(amountText(serializeCreateBody(payinBody(m, 'crypto', 'r', { amount: '0.1234567891' })))).toBe('0.1234567891');
    expect(amountText(serializeCreateBody(payinBody(m, 'blik', 'r', { amount: '10.50' })))).toBe('10.50');
    expect(amountText(serializeCreateBody(payinBody(m, 'blik', 'r', { amount: '123456789012345.99' })))).toBe('123456789012345.99');
    expect(amountText(serializeCreateBody({ ...payinBody(m, 'blik', 'r'), amount: new LosslessNumber('0.30') }))).toBe('0.30');
    expect(amountText(serializeCreateBody(payoutBody(m, 'crypto', 'p', { amount: '0.0000000001' })))).toBe('0.0000000001');
  });

  it.each(['1e5', '.5', '5.', '01.00', 'abc', '', ' 1.00', 'NaN'])('refuses %j as an amount before anything is recorded', (amount) => {
    expect(() => jsonAmount(amount)).toThrow(TypeError);
  });

  it('refuses a JS number (binary float) at run time too', () => {
    expect(() => jsonAmount(0.1 as unknown as string)).toThrow(TypeError);
  });
});

describe('prepareBody', () => {
  it('keeps the exact bytes in memory and a sanitized copy with its hash for the store', () => {
    const p = prepareBody(payinBody(m, 'credit_card', 'r1'));
    expect(p.bodyText).toContain(TEST_CARD.number);
    expect(p.sanitizedText).not.toContain(TEST_CARD.number);
    expect(p.sanitizedText).not.toContain(`"cardCvv":"${TEST_CARD.cvv}"`);
    expect(p.requestHash).toBe(requestHash(p.sanitizedText));
    expect(p.replayable).toBe(false);
  });

  it('stores a replayable body verbatim', () => {
    const p = prepareBody(payoutBody(m, 'fps', 'p1'));
    expect(p.sanitizedText).toBe(p.bodyText);
    expect(p.replayable).toBe(true);
  });

  it('hashes the sanitized text: the same body always gives the same hash, another body another', () => {
    const body = payinBody(m, 'crypto', 'r1');
    expect(prepareBody(body).requestHash).toBe(prepareBody({ ...body }).requestHash);
    expect(prepareBody(body).requestHash).not.toBe(prepareBody({ ...body, amount: '0.1234567892' }).requestHash);
    expect(requestHash('{}')).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  });

  it('gives the same bytes however the object was built (sorted keys)', () => {
    const body = payoutBody(m, 'open_banking', 'p1');
    const reversed = Object.fromEntries(Object.entries(body).reverse()) as typeof body;
    expect(prepareBody(reversed).bodyText).toBe(prepareBody(body).bodyText);
    expect(Object.keys(JSON.parse(prepareBody(body).bodyText))).toEqual(Object.keys(body).sort());
  });
});

describe('stray card numbers', () => {
  it('a card number typed into another field is masked and the body is no longer replayable', () => {
    const { body, replayable } = sanitizeRequest({ ...payinBody(m, 'blik', 'r1'), first_name: '4111 1111 1111 1111' });
    expect(body.first_name).toBe('411111******1111');
    expect(replayable).toBe(false);
  });

  it('leaves phone numbers and references that are not card numbers alone', () => {
    const { body, replayable } = sanitizeRequest({ ...payinBody(m, 'blik', 'r1'), request_id: '1234567890123', mobile: '+4915112345678' });
    expect(body).toMatchObject({ request_id: '1234567890123', mobile: '+4915112345678' });
    expect(replayable).toBe(true);
  });
});
