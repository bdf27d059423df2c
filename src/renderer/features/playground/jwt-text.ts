// A decoded merchant JWT's signature verdict in words, apart from React so a unit test can read it.
// Each verdict is said once: main's `why` names the reason (the badge and one sentence say it),
// and main's message is added only where it tells more (what is malformed, why nothing was checked).
import type { DecodedJwtView } from '../../../shared/contract';

type Signature = DecodedJwtView['signature'];

export const SIGNATURE_BADGES: Record<Signature['status'], { label: string; color: string }> = {
  valid: { label: 'signature valid', color: 'teal' },
  invalid: { label: 'signature invalid', color: 'red' },
  malformed: { label: 'malformed: cannot be checked', color: 'orange' },
  not_checked: { label: 'signature not checked', color: 'gray' },
};

const INVALID_BECAUSE: Record<string, string> = {
  bad_alg: 'The header alg is not EdDSA, the only one the gateway accepts.',
  bad_kid: "The header kid is not this profile's key.",
  bad_signature: "The signature does not verify with this profile's public key (header or payload changed, or another key signed it).",
};

const capitalised = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/** The sentence under the badge. */
export function signatureSentence(decoded: Pick<DecodedJwtView, 'signature' | 'key'>): string {
  const { signature, key } = decoded;
  switch (signature.status) {
    case 'valid':
      return `Verified with the profile's key${key ? ` (kid ${key.kid}, fingerprint ${key.fingerprint})` : ''}.`;
    case 'invalid':
      return (signature.why && INVALID_BECAUSE[signature.why]) ?? `${capitalised(signature.message ?? 'The signature does not verify')}.`;
    case 'malformed':
      return `Not a well-formed compact JWS${signature.message ? `: ${signature.message}` : ''}. There is no signature to check, with or without a key.`;
    case 'not_checked':
      return `Not checked: ${signature.message ?? 'no key to check it with'}.`;
  }
}
