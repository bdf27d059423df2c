// Tokenization → vaulted token → charge. The card travels only inside the merchant JWT (signed
// here with the profile's key, never returned to the renderer); the vaulted-token record comes
// from v2_tokenization_notification (NotificationApplier) and keeps brand, first 6, last 4,
// expiry and the token reference. A charge's pay-in row keeps that masked card, since its request
// names none. The CVV is asked for on every charge, goes into that one request body, and is never
// stored or logged (the attempt keeps the redacted body only).
import type { SubmitResult, TokenChargeForm, TokenizeForm, TokenView } from '../../../shared/contract';
import type { TokenChargeInput, TokenizationCreateInput } from '../../gateway/endpoints';
import { signMerchantJwt } from '../../gateway/merchant-jwt';
import type { CardToken, TokenState } from '../../ledger/repositories/tokens';
import type { Profile } from '../../ledger/repositories/profiles';
import { ServiceError } from '../errors';
import { FieldProblems, tokenChargeBody, tokenizationBody } from './bodies';
import { cardFacts, tokenCardFacts } from './card-facts';
import type { PaymentsContext } from './context';
import type { PayinService } from './payin-service';
import type { Submitter } from './submitter';
import { tokenView } from './views';

export class TokenService {
  constructor(
    private readonly ctx: PaymentsContext,
    private readonly submitter: Submitter,
    private readonly payins: PayinService,
  ) {}

  async tokenize(form: TokenizeForm): Promise<SubmitResult> {
    const profile = await this.ctx.sendingProfile(form.profileId);
    const { body, card } = await tokenizationBody(form, this.payins.payinContext(profile));
    const key = await this.ctx.deps.credentials.signingKey(profile);
    body.merchant_jwt = await signMerchantJwt(key, { op: 'tokenize', merchantId: profile.merchantId, card }, this.ctx.deps);
    return this.submitter.payin(profile, 'tokenization_create', body as unknown as TokenizationCreateInput, cardFacts(card));
  }

  async list(input: { profileId?: string | undefined; state?: TokenState | undefined } = {}): Promise<TokenView[]> {
    const profile = await this.ctx.profile(input.profileId);
    return (await this.ctx.repos.tokens.list(profile.id, input.state)).map(tokenView);
  }

  /** A vaulted token of this profile that can still be charged. */
  async usableToken(profile: Profile, tokenId: number): Promise<CardToken> {
    const token = await this.ctx.repos.tokens.byId(tokenId);
    if (!token || token.profileId !== profile.id) throw new ServiceError('not_found', `No vaulted token ${tokenId} in profile "${profile.name}".`, { tokenId: 'is not a token of this profile' });
    if (token.state !== 'active') throw new ServiceError('conflict', `Token ${tokenId} was revoked: tokenize the card again.`, { tokenId: 'is revoked' });
    return token;
  }

  async charge(form: TokenChargeForm): Promise<SubmitResult> {
    const profile = await this.ctx.sendingProfile(form.profileId);
    const problems = new FieldProblems();
    let token: CardToken | undefined;
    try {
      token = await this.usableToken(profile, form.tokenId);
    } catch (error) {
      if (!(error instanceof ServiceError) || !error.fields?.tokenId) throw error;
      problems.add('tokenId', error.fields.tokenId);
    }
    const body = await tokenChargeBody(form, this.payins.payinContext(profile), problems);
    const usable = token as CardToken;
    const key = await this.ctx.deps.credentials.signingKey(profile);
    body.merchant_jwt = await signMerchantJwt(key, { op: 'decrypt', merchantId: profile.merchantId, token: usable.tokenRef }, this.ctx.deps);
    const result = await this.submitter.payin(profile, 'token_charge_create', body as unknown as TokenChargeInput, tokenCardFacts(usable));
    if (result.gatewayError?.reasonCode === 'INVALID_OR_EXPIRED_TOKEN') {
      // The gateway no longer honours it: keep it as history, stop offering it.
      await this.ctx.repos.tokens.revoke(usable.id);
      await this.ctx.publish({ subject: 'token', rowId: usable.id });
    }
    return result;
  }
}
