// The JWT tools say each verdict once, and never call a signature invalid when nothing
// could be checked. Read off what the decoder really answers.
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { decodeJwt } from '../../../src/main/gateway/jwt-decoder';
import { generateMerchantKeyPair } from '../../../src/main/gateway/jwt-keys';
import { SIGNATURE_BADGES, signatureSentence } from '../../../src/renderer/features/playground/jwt-text';

const NOW = Date.UTC(2030, 5, 1, 12, 0, 0);
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** Any phrase of three words or more said twice in one sentence ("alg is not EdDSA: alg is not EdDSA"). */
function repeatedPhrase(text: string): string | null {
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const seen = new Set<string>();
  for (let i = 0; i + 3 <= words.length; i++) {
    const phrase = words.slice(i, i + 3).join(' ');
    if (seen.has(phrase)) return phrase;
    seen.add(phrase);
  }
  return null;
}

describe('the JWT signature verdict in words', () => {
  it('says a wrong alg once', async () => {
    const key = await generateMerchantKeyPair('kid-1');
    const hs = await new SignJWT({ op: 'decrypt' }).setProtectedHeader({ alg: 'HS256', kid: 'kid-1' }).sign(new Uint8Array(32));
    const decoded = { ...(await decodeJwt(hs, { nowMs: NOW, key: { kid: 'kid-1', publicKey: key.publicKey } })), key: null };
    const sentence = signatureSentence(decoded);
    expect(sentence).toBe('The header alg is not EdDSA, the only one the gateway accepts.');
    expect(repeatedPhrase(sentence)).toBeNull();
    expect(SIGNATURE_BADGES[decoded.signature.status].label).toBe('signature invalid');
  });

  it.each([
    ['two parts', 'a.b'],
    ['a payload that is not JSON', `${b64({ alg: 'EdDSA', kid: 'k' })}.${Buffer.from('{oops').toString('base64url')}.sig`],
  ])('calls %s malformed, not invalid, with a key or without one', async (_name, jwt) => {
    const key = await generateMerchantKeyPair('kid-1');
    for (const options of [{ nowMs: NOW }, { nowMs: NOW, key: { kid: 'kid-1', publicKey: key.publicKey } }]) {
      const decoded = { ...(await decodeJwt(jwt, options)), key: null };
      expect(decoded.signature.status).toBe('malformed');
      expect(SIGNATURE_BADGES[decoded.signature.status].label).toBe('malformed: cannot be checked');
      const sentence = signatureSentence(decoded);
      expect(sentence).toMatch(/^Not a well-formed compact JWS: .+\. There is no signature to check, with or without a key\.$/);
      expect(sentence).not.toMatch(/invalid/i);
      expect(repeatedPhrase(sentence)).toBeNull();
    }
  });

  it('says why nothing was checked when the profile has no key', () => {
    expect(signatureSentence({ signature: { status: 'not_checked', message: 'profile "Emulator" has no JWT key to verify with' }, key: null })).toBe('Not checked: profile "Emulator" has no JWT key to verify with.');
  });
});
