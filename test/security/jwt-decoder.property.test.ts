// The developer view's JWT decoder (src/main/gateway/jwt-decoder.ts) takes
// whatever is pasted. Property: any value, and any three-segment token built from arbitrary JSON,
// decodes to a result (never a throw) that is plain JSON, fits the contract's output schema,
// and never hands back a card number whole or a CVV, wherever in the token they hide.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, type VerificationKey } from '../../src/main/gateway/jwt-decoder';
import { generateMerchantKeyPair } from '../../src/main/gateway/jwt-keys';
import { decodedJwtSchema } from '../../src/shared/contract';
import { checkParams, hostileValue, prototypePollution, show } from './helpers/arbitraries';
import { luhnComplete } from './helpers/sentinels';

const NOW = Date.now();
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
let key: VerificationKey;

beforeAll(async () => {
  const pair = await generateMerchantKeyPair('kid-prop');
  key = { kid: 'kid-prop', publicKey: pair.publicKey };
});

afterAll(() => {
  expect(prototypePollution()).toEqual([]);
});

async function decodeChecked(input: unknown, withKey: boolean) {
  const started = Date.now();
  const decoded = await decodeJwt(input, { nowMs: NOW, ...(withKey ? { key } : {}) });
  expect(Date.now() - started, `decode of ${show(input)} took too long`).toBeLessThan(2_000);
  const text = JSON.stringify(decoded); // plain JSON: no BigInt, no cycles
  expect(decodedJwtSchema.safeParse({ ...decoded, key: null }).success, show(decoded)).toBe(true);
  expect(Array.isArray(decoded.problems)).toBe(true);
  return { decoded, text };
}

/** A Luhn-valid 16-digit number placed somewhere in a JSON value: as a claim, nested, as a key, as a number, with spaces. */
const panArbitrary = fc.stringMatching(/^[3-6]\d{14}$/).map(luhnComplete);
const placedPan = fc.tuple(panArbitrary, fc.jsonValue({ maxDepth: 3 }), fc.constantFrom('claim', 'nested', 'key', 'number', 'spaced', 'text')).map(([pan, filler, where]) => {
  const claims: Record<string, unknown> = { filler };
  switch (where) {
    case 'claim':
      claims.cardholder_number = pan;
      break;
    case 'nested':
      claims.deep = { list: [filler, { pan }] };
      break;
    case 'key':
      claims[pan] = filler;
      break;
    case 'number':
      claims.n = Number(pan);
      break;
    case 'spaced':
      claims.card = pan.replace(/(\d{4})(?=\d)/g, '$1 ');
      break;
    case 'text':
      claims.note = `card ${pan} exp 12/31`;
      break;
  }
  return { pan, claims };
});

describe('JWT decoder under hostile input', () => {
  it('answers any value at all with a result, never a throw', async () => {
    await fc.assert(
      fc.asyncProperty(hostileValue(), fc.boolean(), async (input, withKey) => {
        await decodeChecked(input, withKey);
      }),
      checkParams(300),
    );
  });

  it('answers any three-segment token of arbitrary JSON, base64url or not', async () => {
    const segment = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }).map((v) => b64(JSON.stringify(v))),
      fc.string().map(b64),
      fc.string(),
      fc.stringMatching(/^[A-Za-z0-9_-]{0,64}$/),
      fc.constant(''),
    );
    await fc.assert(
      fc.asyncProperty(segment, segment, segment, fc.boolean(), async (h, p, s, withKey) => {
        await decodeChecked(`${h}.${p}.${s}`, withKey);
      }),
      checkParams(400),
    );
  });

  it('never returns a card number whole or a CVV, wherever in the token they are', async () => {
    await fc.assert(
      fc.asyncProperty(placedPan, fc.stringMatching(/^\d{3,4}$/), fc.boolean(), async ({ pan, claims }, cvv, withKey) => {
        const header = { alg: 'EdDSA', kid: 'kid-prop', x5u: pan };
        const payload = { ...claims, cardCvv: `cvv-${cvv}-marker`, iat: Math.floor(NOW / 1000) };
        const { text } = await decodeChecked(`${b64(JSON.stringify(header))}.${b64(JSON.stringify(payload))}.c2ln`, withKey);
        expect(text).not.toContain(pan);
        expect(text.replace(/\s/g, '')).not.toContain(pan);
        expect(text).not.toContain(`cvv-${cvv}-marker`);
      }),
      checkParams(300),
    );
  });
});
