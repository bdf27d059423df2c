import { describe, expect, it } from 'vitest';
import { prepareBody, requestHash } from '../../../src/main/gateway/attempt-body';
import { holdsPan, maskPan, maskPansIn, redact, redactForStorage, sanitizeRequest } from '../../../src/shared/redact';
import { jsonAmount, serializeCreateBody } from '../../../src/main/gateway/serialize';
import { LosslessNumber } from '../../../src/shared/json';
import { TEST_CARD, payinBody, payoutBody, tokenChargeBody, tokenizationBody } from '../../helpers/fixtures';

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

describe('the safety net never touches an id, a reference or an amount', () => {
  // Digit groups of these pass Luhn across the hyphens: the old masker rewrote them.
  const uuids = ['cabdb3bd-d47c-4999-8779-1974237d4f2a', 'cabdb3bd-d47c-4999-8779-197423712345', '12345678-1234-1234-1234-123456789012'];

  it.each(uuids)('keeps %s in text, in any field and as JSON text', (uuid) => {
    expect(maskPansIn(`payin ${uuid} failed`)).toBe(`payin ${uuid} failed`);
    expect(redact({ anything: uuid, message: `id ${uuid}`, nested: [uuid] })).toEqual({ anything: uuid, message: `id ${uuid}`, nested: [uuid] });
    expect(maskPansIn(JSON.stringify({ payin_id: uuid }))).toBe(JSON.stringify({ payin_id: uuid }));
  });

  it('keeps digit runs glued to a letter, digit, "_", "-" or "+", and decimal amounts', () => {
    for (const text of ['order-4111111111111111', 'inv_4111111111111111', 'x4111111111111111', '4111111111111111-2', '+4111111111111111', '1234567890123.45', '0.4111111111111111', 'amount 4111111111111.5 EUR']) {
      expect(maskPansIn(text), text).toBe(text);
    }
  });

  it('masks a card number standing apart, plain, spaced or dashed, and each of a comma-separated pair', () => {
    expect(maskPansIn('card 4111 1111 1111 1111.')).toBe('card 411111******1111.');
    expect(maskPansIn('"4111-1111-1111-1111"')).toBe('"411111******1111"');
    expect(maskPansIn('4111111111111111,5555555555554444')).toBe('411111******1111,555555******4444');
    expect(maskPansIn('qty 1 4111 1111 1111 1111')).toBe('qty 1 411111******1111');
    expect(maskPansIn('12-4111111111111111 and 12 4111111111111111')).toBe('12-4111111111111111 and 12 411111******1111');
    expect(holdsPan('pay 4111111111111111 now')).toBe(true);
    expect(holdsPan('cabdb3bd-d47c-4999-8779-1974237d4f2a')).toBe(false);
  });

  it('scans a hostile 256 KiB text in linear time', () => {
    // Judged by how the work grows, not by a clock limit (a loaded machine is slow either way):
    // four times the text takes about four times the CPU when linear, sixteen when quadratic.
    const cpuMs = (text: string) => {
      let best = Infinity;
      for (let run = 0; run < 3; run++) {
        const before = process.cpuUsage();
        maskPansIn(text);
        const used = process.cpuUsage(before);
        best = Math.min(best, (used.user + used.system) / 1000);
      }
      return best;
    };
    const hostile = [(n: number) => '1 '.repeat(n / 2), (n: number) => '1-'.repeat(n / 2), (n: number) => `${'1'.repeat(n - 1)}.5`, (n: number) => '4111 1111 1111 1111 '.repeat(Math.round(n / 20))];
    for (const make of hostile) {
      const small = cpuMs(make(65_536));
      const large = cpuMs(make(262_144));
      expect(large / Math.max(small, 1), `${make(20).slice(0, 20)}…: ${small.toFixed(1)} ms at 64 KiB, ${large.toFixed(1)} ms at 256 KiB`).toBeLessThan(9);
    }
  });

  it('keeps identifier, reference, key and amount fields byte for byte, even when they are all digits', () => {
    const exact = { request_id: '4111111111111111', merchantReference: '4111111111111111', payinId: '4111111111111111', idempotencyKey: '4111111111111111', amount: new LosslessNumber('4111111111111.50'), tokenRef: '4111111111111111' };
    expect(redact(exact)).toEqual(exact);
    expect(redactForStorage(exact)).toEqual(exact);
  });

  it('masks a card number sent as a JSON number, and one too long to be exact', () => {
    const out = redact({ n: 4111111111111111, big: new LosslessNumber('4111111111111111110'), rounded: Number('41111111111111111111') }) as Record<string, unknown>;
    expect(out).toMatchObject({ n: '411111******1111', big: '411111*********1110' });
    // JSON.parse rounded it: its digits cannot be checked, so it is masked anyway.
    expect(out.rounded).toMatch(/^411111\*{10}\d{4}$/);
    expect(redact({ count: 1234567890123, status_code: 200 })).toEqual({ count: 1234567890123, status_code: 200 });
  });

  it('shows text masked in every field, but stores a request with its URLs and unknown fields as sent', () => {
    const body = { success_url: 'https://shop.example/?card=4111111111111111', note: 'x' };
    expect(redact(body)).toEqual({ success_url: 'https://shop.example/?card=411111******1111', note: 'x' });
    expect(redactForStorage(body)).toEqual(body);
  });
});
