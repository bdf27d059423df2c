// What the ledger keeps of a request (src/shared/redact.ts). Property: a
// card number never survives redaction whole, whether it is a field's whole value, sits in a card
// field, or hides inside a name or an address ("Ana 4111 1111 1111 1111", the case this suite
// found stored in clear); CVVs, JWTs and credentials are removed; and identifiers, phone numbers
// and wallet addresses that merely contain digits are kept as they are (so such requests stay
// replayable after a restart).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, redact, sanitizeRequest } from '../../src/shared/redact';
import { checkParams, hostileValue, show } from './helpers/arbitraries';
import { luhnComplete } from './helpers/sentinels';

const pan = fc.tuple(fc.constantFrom('4', '51', '37', '6011'), fc.integer({ min: 13, max: 19 })).chain(([prefix, length]) =>
  fc.stringMatching(new RegExp(`^\\d{${length - prefix.length - 1}}$`)).map((middle) => luhnComplete(`${prefix}${middle}`)),
);
const spaced = (p: string, sep: string) => p.replace(/(\d{4})(?=\d)/g, `$1${sep}`);
const words = fc.stringMatching(/^[A-Za-zÀ-ÿ .,'-]{0,20}$/);

describe('redaction of what the ledger keeps', () => {
  it('never keeps a card number whole, wherever in a free-text field or card field it is', () => {
    fc.assert(
      fc.property(pan, fc.constantFrom('', ' ', '-'), words, words, fc.constantFrom('first_name', 'last_name', 'address', 'city', 'cardHolder', 'accountHolder', 'cardNum', 'pan', 'anything'), (p, sep, before, after, field) => {
        const text = field === 'anything' ? spaced(p, sep) : `${before}${before ? ' ' : ''}${spaced(p, sep)}${after ? ' ' : ''}${after}`;
        const body = { nested: { [field]: text }, [field]: text };
        const kept = JSON.stringify(redact(body));
        expect(kept.replace(/[ -]/g, ''), `${field}: ${show(text)}`).not.toContain(p);
        expect(sanitizeRequest(body).replayable).toBe(false);
      }),
      checkParams(500),
    );
  });

  it('removes CVVs, merchant JWTs and credentials whatever their value', () => {
    fc.assert(
      fc.property(fc.constantFrom('cardCvv', 'cvv', 'CVC', 'merchant_jwt', 'merchant-token', 'merchantToken', 'privateKey', 'private_jwk', 'password', 'secret'), hostileValue(), (key, value) => {
        const out = redact({ [key]: value, inner: { [key]: value } }) as Record<string, Record<string, unknown>>;
        expect(out[key]).toBe(REDACTED);
        expect(out.inner?.[key]).toBe(REDACTED);
      }),
      checkParams(200),
    );
  });

  it('keeps identifiers, phone numbers and wallet addresses that are not card numbers', () => {
    const phone = fc.stringMatching(/^\+[1-9]\d{11,14}$/);
    const reference = fc.tuple(fc.constantFrom('order-', 'inv_', 'R'), fc.stringMatching(/^\d{13,16}$/)).map(([a, b]) => `${a}${b}`);
    const wallet = fc.stringMatching(/^0x[0-9a-fA-F]{40}$/);
    fc.assert(
      fc.property(phone, reference, wallet, (mobile, request_id, walletAddress) => {
        const body = { mobile, request_id, paymentDetails: { walletAddress }, customer: { phone: mobile } };
        expect(redact(body)).toEqual(body);
      }),
      checkParams(300),
    );
  });
});
