// The developer's merchant-JWT tools: sign with the profile's key and decode anything, against
// the profile's public key; never a full card number back in the renderer.
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateMerchantKeyPair } from '../../../src/main/gateway/jwt-keys';
import { card, localProfileId, startHarness, TEST_PAN, type Harness } from './harness';

let h: Harness;
let profileId: string;
const KID = 'jwt-tools-test';

beforeAll(async () => {
  h = await startHarness();
  profileId = await localProfileId(h);
});

afterAll(async () => {
  await h?.close();
});

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('jwt:sign and jwt:decode', () => {
  it('says so when the profile has no key to sign or verify with', async () => {
    expect((await h.failure('jwt:sign', { op: 'decrypt', token: 'tok_1' })).code).toBe('unavailable');
    const decoded = await h.call('jwt:decode', { jwt: `${b64({ alg: 'EdDSA', kid: 'x' })}.${b64({ op: 'decrypt' })}.c2ln` });
    expect(decoded.signature).toMatchObject({ status: 'not_checked' });
    expect(decoded.key).toBeNull();
    await h.call('credentials:generate-key', { profileId, kid: KID });
  });

  it('round-trips a decrypt JWT: returned compact, decoded with claims, iat skew and a valid signature', async () => {
    const signed = await h.call('jwt:sign', { op: 'decrypt', token: 'tok_abc123' });
    expect(signed.withheld).toBeNull();
    expect(signed.jwt).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const decoded = await h.call('jwt:decode', { jwt: signed.jwt ?? '' });
    expect(decoded.header).toEqual({ alg: 'EdDSA', kid: KID, typ: 'JWT' });
    expect(decoded.claims).toMatchObject({ op: 'decrypt', token: 'tok_abc123', sub: h.core.local.merchant.merchant_id });
    expect(decoded.claims?.jti).toEqual(expect.any(String));
    expect(Math.abs(decoded.iatSkewSeconds ?? 99)).toBeLessThanOrEqual(2);
    expect(decoded).toMatchObject({ iatWithinTolerance: true, signature: { status: 'valid' }, problems: [], key: { kid: KID } });
    // Each signature is fresh: a new jti.
    const again = await h.call('jwt:sign', { op: 'decrypt', token: 'tok_abc123' });
    expect((await h.call('jwt:decode', { jwt: again.jwt ?? '' })).claims?.jti).not.toBe(decoded.claims?.jti);
  });

  it('signs a tokenize JWT but withholds it: the renderer gets the decoded view with the card masked', async () => {
    const signed = await h.call('jwt:sign', { op: 'tokenize', ...card });
    expect(signed.jwt).toBeNull();
    expect(signed.withheld).toMatch(/full card number/);
    // In the screen's words: the tab that sends one, not the channel behind it.
    expect(signed.withheld).toContain('use the Tokenize & charge tab');
    expect(signed.withheld).not.toMatch(/\b[a-z]+:[a-z-]+\b/);
    expect(signed.decoded).toMatchObject({ signature: { status: 'valid' }, claims: { op: 'tokenize', cardholder_number: '411111******1111', cardholder_name: card.cardHolder } });
    expect(JSON.stringify(signed)).not.toContain(TEST_PAN);
    expect((await h.failure('jwt:sign', { op: 'tokenize', ...card, cardNum: '4111111111111112' })).fields).toHaveProperty('cardNum');
    // A "token" that is a card number would put the PAN in a decrypt JWT: refused.
    expect((await h.failure('jwt:sign', { op: 'decrypt', token: TEST_PAN })).fields).toHaveProperty('token');
    expect((await h.failure('jwt:sign', { op: 'decrypt' })).code).toBe('invalid_input');
  });

  it('tells a tampered, foreign-key or wrong-alg JWT from a good one', async () => {
    const { jwt } = await h.call('jwt:sign', { op: 'decrypt', token: 'tok_abc123' });
    const [header, payload, signature] = (jwt ?? '').split('.');
    const tampered = `${header}.${b64({ ...(JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as object), token: 'tok_other' })}.${signature}`;
    expect((await h.call('jwt:decode', { jwt: tampered })).signature).toMatchObject({ status: 'invalid', why: 'bad_signature' });

    const foreign = await generateMerchantKeyPair(KID);
    const forged = await new SignJWT({ jti: 'j', op: 'decrypt', sub: 'm', iat: Math.floor(Date.now() / 1000) - 600, token: 't' })
      .setProtectedHeader({ alg: 'EdDSA', kid: KID })
      .sign(foreign.privateKey);
    const decoded = await h.call('jwt:decode', { jwt: forged });
    expect(decoded.signature).toMatchObject({ status: 'invalid', why: 'bad_signature' });
    expect(decoded.iatWithinTolerance).toBe(false);
    expect(decoded.problems.join(' ')).toMatch(/iat/);

    const none = `${b64({ alg: 'none', kid: KID })}.${b64({ op: 'decrypt', cardholder_number: TEST_PAN, cvv: '987' })}.`;
    const unsigned = await h.call('jwt:decode', { jwt: none });
    expect(unsigned.signature.status).toBe('invalid');
    expect(unsigned.problems).toContain('header alg must be EdDSA');
    expect(JSON.stringify(unsigned)).not.toContain(TEST_PAN);
    expect(JSON.stringify(unsigned)).not.toContain('987');
  });

  it('describes hostile input instead of failing on it, and bounds its size', async () => {
    const deep = `${b64({ alg: 'EdDSA' })}.${Buffer.from(`{"a":${'['.repeat(5_000)}${']'.repeat(5_000)}}`).toString('base64url')}.AA`;
    const inputs = ['', '...', 'a.b', 'a.b.c.d', 'not base64!.x.y', `${b64([1, 2])}.${b64('x')}.AA`, `${b64({ alg: 'EdDSA', ['__proto__']: { polluted: true } })}.${b64({ ['__proto__']: { admin: true } })}.AA`, 'x'.repeat(20_000), deep, `${b64({ alg: 'EdDSA' })}.${b64({ note: `card ${TEST_PAN.replace(/(\d{4})/g, '$1 ').trim()} thanks` })}.AA`];
    for (const input of inputs) {
      const decoded = await h.call('jwt:decode', { jwt: input });
      expect(decoded.signature.status, input.slice(0, 40)).not.toBe('valid');
      expect(JSON.stringify(decoded)).not.toContain(TEST_PAN);
      expect(JSON.stringify(decoded)).not.toMatch(/4111 1111 1111 1111/);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await h.failure('jwt:decode', { jwt: 'x'.repeat(70_000) })).fields).toHaveProperty('jwt');
    expect((await h.failure('jwt:decode', { jwt: 42 })).fields).toHaveProperty('jwt');
    expect((await h.failure('jwt:decode', undefined)).code).toBe('invalid_input');
  });
});
