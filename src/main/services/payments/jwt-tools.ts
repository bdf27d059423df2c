// The developer view's merchant-JWT tools: sign a tokenize / decrypt JWT with the profile's key,
// and decode anything pasted (header, claims with card numbers masked, iat skew, and whether the
// signature verifies against the profile's public key).
//
// Our rule for jwt:sign: a compact JWT goes back to the renderer only when its payload holds no
// card number. An op=tokenize JWT carries the full PAN in readable base64, and PRODUCT.md allows
// the renderer first 6 / last 4 at most, so for it only the decoded (masked) view is returned;
// tokens:tokenize signs and sends one without it ever leaving main. An op=decrypt JWT carries a
// token reference only and is returned as is.
import type { DecodedJwtView, JwtSignForm } from '../../../shared/contract';
import { holdsPan } from '../../../shared/redact';
import { decodeJwt, type DecodedJwt } from '../../gateway/jwt-decoder';
import { publicKeyFingerprint, type MerchantKeyPair } from '../../gateway/jwt-keys';
import { signMerchantJwt } from '../../gateway/merchant-jwt';
import { ServiceError } from '../errors';
import { FieldProblems, tokenizeCard } from './bodies';
import type { PaymentsContext } from './context';

export const TOKENIZE_JWT_WITHHELD =
  'An op=tokenize JWT carries the full card number in readable base64, so Paydesk keeps it in the main process: ' +
  'the decoded view shows it with the card number masked. To tokenize a card, use the Tokenize & charge tab: it signs the JWT there and sends it.';
const PAN_WITHHELD = 'The JWT payload holds something that looks like a card number, so it is not handed to the renderer.';

/** True when the JWT's payload, decoded, holds a card number (the shared safety net's test). */
function payloadHoldsPan(jwt: string): boolean {
  const payload = jwt.split('.')[1] ?? '';
  return holdsPan(Buffer.from(payload, 'base64url').toString('utf8'));
}

export class JwtTools {
  constructor(private readonly ctx: PaymentsContext) {}

  async sign(form: JwtSignForm): Promise<{ jwt: string | null; withheld: string | null; decoded: DecodedJwtView }> {
    const profile = await this.ctx.profile(form.profileId);
    const { credentials, repos } = this.ctx.deps;
    const problems = new FieldProblems();
    if (form.op === 'tokenize') {
      const card = tokenizeCard(form, problems);
      problems.throwIfAny('The JWT');
      const pair = await credentials.signingKey(profile);
      const jwt = await signMerchantJwt(pair, { op: 'tokenize', merchantId: profile.merchantId, card }, this.ctx.deps);
      return { jwt: null, withheld: TOKENIZE_JWT_WITHHELD, decoded: await this.decodeWith(jwt, pair) };
    }
    let tokenRef = form.token;
    if (form.tokenId !== undefined) {
      const token = await repos.tokens.byId(form.tokenId);
      if (!token || token.profileId !== profile.id) problems.add('tokenId', 'is not a token of this profile');
      tokenRef = token?.tokenRef;
    }
    if (tokenRef !== undefined && holdsPan(tokenRef)) problems.add('token', 'looks like a card number: a decrypt JWT carries a token reference, never card data');
    problems.throwIfAny('The JWT');
    const pair = await credentials.signingKey(profile);
    const jwt = await signMerchantJwt(pair, { op: 'decrypt', merchantId: profile.merchantId, token: tokenRef ?? '' }, this.ctx.deps);
    const withheld = payloadHoldsPan(jwt) ? PAN_WITHHELD : null;
    return { jwt: withheld ? null : jwt, withheld, decoded: await this.decodeWith(jwt, pair) };
  }

  /** Never throws for what is pasted: a malformed string is described, not refused. */
  async decode(form: { profileId?: string | undefined; jwt: string }): Promise<DecodedJwtView> {
    const profile = await this.ctx.profile(form.profileId);
    let pair: MerchantKeyPair | null = null;
    try {
      pair = await this.ctx.deps.credentials.signingKey(profile);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
    }
    const decoded = await this.decodeWith(form.jwt, pair);
    if (pair === null && decoded.signature.status === 'not_checked') {
      decoded.signature.message = `profile "${profile.name}" has no JWT key to verify with`;
    }
    return decoded;
  }

  private async decodeWith(jwt: string, pair: MerchantKeyPair | null): Promise<DecodedJwtView> {
    const decoded: DecodedJwt = await decodeJwt(jwt, { nowMs: this.ctx.deps.clock.now(), ...(pair ? { key: { kid: pair.kid, publicKey: pair.publicKey } } : {}) });
    return {
      header: decoded.header,
      claims: decoded.claims,
      iatSkewSeconds: decoded.iatSkewSeconds,
      iatWithinTolerance: decoded.iatWithinTolerance,
      signature: { ...decoded.signature },
      problems: decoded.problems,
      key: pair ? { kid: pair.kid, fingerprint: await publicKeyFingerprint(pair.publicJwk) } : null,
    };
  }
}
