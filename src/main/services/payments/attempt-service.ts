// Create-call attempts after the fact: list them for a transaction, settle one whose outcome is
// unknown, and recover at startup. An unknown attempt is settled only with its own
// Idempotency-Key: a pay-in is first looked up by request_id with a status read like any other
// (the shared StatusReader: rate limit, recorded, applied; found: settled, nothing sent); if the
// gateway has no such pay-in, or for a payout (its status read needs the payout_id the lost
// answer held), the same bytes go out again under the same key, which the gateway answers with
// the first response if it had received it. A new key is never used for it.
import type { AttemptResumeForm, AttemptView, SubmitResult } from '../../../shared/contract';
import { isJsonObject } from '../../../shared/json';
import { maskPan } from '../../../shared/redact';
import type { PayinStatusResponse } from '../../../shared/spec/schemas';
import type { AttemptOutcome } from '../../gateway/attempt-runner';
import { parseObject } from '../../gateway/classify';
import type { CreateEndpoint, CreateRequests } from '../../gateway/endpoints';
import { signMerchantJwt } from '../../gateway/merchant-jwt';
import type { CallResult } from '../../gateway/result';
import type { Attempt } from '../../ledger/repositories/attempts';
import type { Profile } from '../../ledger/repositories/profiles';
import { ServiceError } from '../errors';
import { FieldProblems, tokenizeCard } from './bodies';
import type { PaymentsContext } from './context';
import { refuseSandboxPayouts } from './payout-service';
import type { Submitter } from './submitter';
import type { TokenService } from './token-service';
import { attemptView } from './views';

export const INTERRUPTED = 'interrupted: the app stopped while the request may have been in flight';

/** The input fields a resume after a restart needs, because the stored request lacks them. */
export function fieldsToReenter(attempt: Attempt): string[] {
  if (attempt.replayable) return [];
  const body = parseObject(attempt.requestBody) ?? {};
  switch (attempt.kind) {
    case 'payin':
      return body.cardNum !== undefined ? ['cardNum', 'cardCvv'] : [];
    case 'token_charge':
      return ['tokenId', 'cardCvv'];
    case 'tokenization':
      return ['cardNum', 'cardHolder', 'cardExpireMonth', 'cardExpireYear'];
    case 'payout':
      return isJsonObject(body.paymentDetails) && body.paymentDetails.cardNum !== undefined ? ['cardNum'] : [];
  }
}

export class AttemptService {
  constructor(
    private readonly ctx: PaymentsContext,
    private readonly submitter: Submitter,
    private readonly tokens: TokenService,
  ) {}

  list(subject: 'payin' | 'payout', id: number): AttemptView[] {
    const { repos } = this.ctx;
    const row = subject === 'payin' ? repos.payins.byId(id) : repos.payouts.byId(id);
    if (!row) throw new ServiceError('not_found', `No ${subject} ${id} in the ledger.`);
    const reference = 'requestId' in row ? row.requestId : row.merchantReference;
    return repos.attempts.forReference(row.profileId, reference).map(attemptView);
  }

  /**
   * At startup, before anything is sent: attempts left in "sending" by a crash become "unknown".
   * Only then: every profile's attempts are taken, and no runner exists yet (GatewaySessions makes
   * them on demand), so no claim of this process is in flight; later, a live claim or send would
   * be taken for an interrupted one.
   */
  recoverInterrupted(): string[] {
    const { attempts } = this.ctx.repos;
    const keys: string[] = [];
    for (let round = 0; round < 100; round++) {
      const batch = attempts.byState('sending');
      if (batch.length === 0) break;
      for (const attempt of batch) {
        attempts.markUnknown(attempt.idempotencyKey, { error: INTERRUPTED });
        keys.push(attempt.idempotencyKey);
      }
    }
    return keys;
  }

  async resume(form: AttemptResumeForm): Promise<SubmitResult> {
    const { repos, gateways, profiles } = this.ctx.deps;
    const attempt = repos.attempts.byKey(form.key);
    if (!attempt) throw new ServiceError('not_found', `No attempt with Idempotency-Key ${form.key}.`, { key: 'is not a recorded attempt' });
    const profile = profiles.require(attempt.profileId);
    if (attempt.kind === 'payout') refuseSandboxPayouts(profile);
    const { runner } = await gateways.for(profile);
    const body = await this.rebuiltBody(profile, attempt, form);
    const options = body === undefined ? {} : { body };
    const needs = fieldsToReenter(attempt);

    if (attempt.kind === 'payout' && attempt.state !== 'succeeded' && attempt.state !== 'rejected') {
      repos.audit.append({ actor: 'user', action: 'payout.resume', profileId: profile.id, subject: attempt.reference, details: { idempotencyKey: attempt.idempotencyKey, state: attempt.state } });
    }

    let outcome: AttemptOutcome;
    if (attempt.kind !== 'payout' && attempt.state === 'unknown') {
      const read = await this.ctx.readStatus(profile, { subject: 'payin', requestId: attempt.reference });
      const answer = read.answer as CallResult<PayinStatusResponse> | null; // a pay-in read: a pay-in answer
      outcome = await runner.settleByRead(attempt.idempotencyKey, answer ?? { kind: 'not_sent', reason: read.detail ?? read.result });
      // Not at the gateway: the first request never arrived, so resending it under its key is safe.
      if (outcome.state === 'unknown' && outcome.lookup === 'not_found') outcome = await runner.resume(attempt.idempotencyKey, options);
    } else {
      outcome = await runner.resume(attempt.idempotencyKey, options);
    }
    return this.submitter.settle(profile, attempt.idempotencyKey, outcome, { needs });
  }

  /**
   * The exact request again, for an attempt whose card data was never stored: the stored
   * (redacted) body with the re-entered values put back and the JWT signed anew. The runner
   * refuses it unless it matches the stored request hash.
   */
  private async rebuiltBody(profile: Profile, attempt: Attempt, form: AttemptResumeForm): Promise<CreateRequests[CreateEndpoint] | undefined> {
    const needs = fieldsToReenter(attempt);
    const givenAny = needs.some((field) => form[field as keyof AttemptResumeForm] !== undefined);
    if (needs.length === 0 || !givenAny) return undefined;
    const problems = new FieldProblems();
    for (const field of needs) if (form[field as keyof AttemptResumeForm] === undefined) problems.add(field, 'is required to resend this attempt');
    problems.throwIfAny('The attempt');
    const body = parseObject(attempt.requestBody) ?? {};
    const sameCard = (stored: unknown, given: string, field: string) => {
      if (typeof stored === 'string' && maskPan(given) !== stored) problems.add(field, 'does not match the card of this attempt');
    };
    const key = () => this.ctx.deps.credentials.signingKey(profile);
    switch (attempt.kind) {
      case 'payin':
        sameCard(body.cardNum, form.cardNum ?? '', 'cardNum');
        Object.assign(body, { cardNum: form.cardNum, cardCvv: form.cardCvv });
        break;
      case 'payout':
        if (isJsonObject(body.paymentDetails)) {
          sameCard(body.paymentDetails.cardNum, form.cardNum ?? '', 'cardNum');
          body.paymentDetails = { ...body.paymentDetails, cardNum: form.cardNum };
        }
        break;
      case 'token_charge': {
        let token;
        try {
          token = this.tokens.usableToken(profile, form.tokenId ?? 0);
        } catch (error) {
          if (error instanceof ServiceError && error.fields?.tokenId) problems.add('tokenId', error.fields.tokenId);
          else throw error;
        }
        problems.throwIfAny('The attempt');
        body.cardCvv = form.cardCvv;
        body.merchant_jwt = await signMerchantJwt(await key(), { op: 'decrypt', merchantId: profile.merchantId, token: token?.tokenRef ?? '' }, this.ctx.deps);
        break;
      }
      case 'tokenization': {
        const card = tokenizeCard(form, problems);
        problems.throwIfAny('The attempt');
        body.merchant_jwt = await signMerchantJwt(await key(), { op: 'tokenize', merchantId: profile.merchantId, card }, this.ctx.deps);
        break;
      }
    }
    problems.throwIfAny('The attempt');
    return body as unknown as CreateRequests[CreateEndpoint];
  }
}
