// Create-call attempts after the fact: list them for a transaction, settle one whose outcome is
// unknown, and recover at startup. An unknown attempt is settled only with its own
// Idempotency-Key: it is first looked up with a status read like any other (the shared
// StatusReader: rate limit, recorded, applied; found: settled, nothing sent), a pay-in by
// request_id, a payout by merchantReference (where the gateway supports it: once it has said it
// cannot, it is not asked that way again, services/verification/reference-reads.ts); if the gateway has no
// such pay-in, or a payout it has not or cannot look up, the same bytes go out again under the
// same key, which the gateway answers with the first response if it had received it. A new key is
// never used for it. A live payout is resent only with the proof of its review (attempts:review,
// ReviewGate), and the background settling only looks it up; the system's own resends (a batch
// its start reviewed, stored answers applied at start-up) go through settle().
import type { AttemptProgressView, AttemptResumeForm, AttemptReviewView, AttemptView, ReenteredField, SubmitResult } from '../../../shared/contract';
import { isJsonObject } from '../../../shared/json';
import { maskPan } from '../../../shared/redact';
import { CARD_FIELDS } from '../../../shared/spec/form-fields';
import type { AttemptOutcome } from '../../gateway/attempt-runner';
import { parseObject } from '../../gateway/classify';
import type { CreateEndpoint, CreateRequests } from '../../gateway/endpoints';
import { signMerchantJwt } from '../../gateway/merchant-jwt';
import type { Attempt } from '../../ledger/repositories/attempts';
import type { Profile } from '../../ledger/repositories/profiles';
import { ServiceError } from '../errors';
import { KIND_OF_ATTEMPT, TRANSACTION_KINDS, transactionOf, type TransactionKind } from '../../transaction-kinds';
import type { ReadRequest } from '../verification/status-reader';
import { FieldProblems, tokenizeCard } from './bodies';
import type { PaymentsContext } from './context';
import type { ProgressQuery } from './progress';
import { refuseSandboxPayouts } from './payout-service';
import type { ReviewSubject } from './review-gate';
import { reviewedPayout, reviewTicket } from './review-views';
import type { Submitter } from './submitter';
import type { TokenService } from './token-service';
import { attemptView } from './views';

export const INTERRUPTED = 'interrupted: the app stopped while the request may have been in flight';

/**
 * The input fields a resume after a restart needs, because the stored request lacks them: what
 * storage masks or drops (the card number, the CVV), and for a tokenization the whole card, which
 * was only in its JWT.
 */
export function fieldsToReenter(attempt: Attempt): ReenteredField[] {
  if (attempt.replayable) return [];
  const body = parseObject(attempt.requestBody) ?? {};
  switch (attempt.kind) {
    case 'payin':
      return body.cardNum !== undefined ? ['cardNum', 'cardCvv'] : [];
    case 'token_charge':
      return ['tokenId', 'cardCvv'];
    case 'tokenization':
      return [...CARD_FIELDS];
    case 'payout':
      return isJsonObject(body.paymentDetails) && body.paymentDetails.cardNum !== undefined ? ['cardNum'] : [];
  }
}

/** What the review of a resume covers: this attempt's key and exactly its recorded request. */
function resumeReviewSubject(attempt: Attempt): ReviewSubject {
  return { kind: 'attempt_resume', profileId: attempt.profileId, content: `${attempt.idempotencyKey}\n${attempt.requestHash}` };
}

/** Who asked for a settle, how long its status read may wait for the rate limit, and whether it may resend. */
export interface SettleHow {
  actor: 'user' | 'system';
  /** 'person': a moment at most, then "rate limited, retry in N s"; 'background': as long as the limit needs. */
  wait: 'person' | 'background';
  /** false: look it up only, never resend (a live payout in the background: resent only after its review). Default true. */
  resend?: boolean;
}

export class AttemptService {
  constructor(
    private readonly ctx: PaymentsContext,
    private readonly submitter: Submitter,
    private readonly tokens: TokenService,
  ) {}

  async list(subject: TransactionKind, id: number): Promise<AttemptView[]> {
    const { repos } = this.ctx;
    const row = await TRANSACTION_KINDS[subject].store(repos).byId(id);
    if (!row) throw new ServiceError('not_found', `No ${subject} ${id} in the ledger.`);
    return (await repos.attempts.forReference(row.profileId, transactionOf(row).reference)).map(attemptView);
  }

  /** Where a create a person waits on stands now (its latest progress report), or null when none is in flight. */
  progress(query: ProgressQuery): AttemptProgressView | null {
    return this.ctx.progress.current(query);
  }

  /**
   * Sends whose process died: every attempt left in "sending" that no instance of `alive` claimed
   * becomes "unknown" (never "failed"), to be settled under its own key. At start-up, before this
   * process sends anything, `alive` is the other live instances (this instance's own claims from
   * before its restart are dead); later, the leader's takeover of a dead instance (scale-out/
   * takeover.ts) passes every live one, this one included, so a live claim is never taken.
   */
  async recoverInterrupted(alive: readonly string[]): Promise<string[]> {
    const { attempts } = this.ctx.repos;
    const keys: string[] = [];
    for (let round = 0; round < 100; round++) {
      const taken = await attempts.takeOverClaims(alive, INTERRUPTED);
      keys.push(...taken);
      if (taken.length === 0) break;
    }
    return keys;
  }

  /**
   * The review of a payout attempt's resume: its stored request (card number masked) as the
   * person checks it, and the review id a live resume needs. Nothing is sent.
   */
  async review(key: string): Promise<AttemptReviewView> {
    const { profiles, reviews } = this.ctx.deps;
    const attempt = await this.require(key);
    if (attempt.kind !== 'payout') throw new ServiceError('invalid_input', 'Only a payout attempt is reviewed before it is resent; resume a pay-in at once.', { key: 'is not a payout attempt' });
    const profile = await profiles.require(attempt.profileId);
    refuseSandboxPayouts(profile);
    if (attempt.state === 'succeeded' || attempt.state === 'rejected') throw new ServiceError('conflict', `This payout attempt is already settled (${attempt.state}): nothing would be resent.`, { key: `is ${attempt.state}` });
    const body = parseObject(attempt.requestBody) ?? {};
    return {
      ...(await reviews.issue(resumeReviewSubject(attempt))),
      ...reviewTicket(profile, typeof body.notificationUrl === 'string' ? body.notificationUrl : ''),
      payout: reviewedPayout(body),
      attempt: attemptView(attempt),
    };
  }

  /** attempts:resume, a person's: a live payout's attempt is resent only with the proof of its review. */
  async resume(form: AttemptResumeForm): Promise<SubmitResult> {
    const { reviewId, confirmed, ...rest } = form;
    const attempt = await this.require(form.key);
    const profile = await this.ctx.deps.profiles.require(attempt.profileId);
    if (attempt.kind === 'payout' && attempt.state !== 'succeeded' && attempt.state !== 'rejected') {
      refuseSandboxPayouts(profile);
      await this.ctx.deps.reviews.redeem({ reviewId, confirmed }, resumeReviewSubject(attempt), profile.environment);
    }
    return this.settle(rest, { actor: 'user', wait: 'person' });
  }

  /**
   * Settles an attempt under its own key (see the file's head), with no review: for a person's
   * resume once its review holds, a batch item (the batch's start was reviewed), the stored answer
   * re-applied at start-up, and the automatic settling of non-live attempts (UnknownSettler).
   */
  async settle(form: AttemptResumeForm, how: SettleHow = { actor: 'system', wait: 'background' }): Promise<SubmitResult> {
    const { repos, gateways, profiles } = this.ctx.deps;
    const attempt = await this.require(form.key);
    const profile = await profiles.require(attempt.profileId);
    if (attempt.kind === 'payout') refuseSandboxPayouts(profile);
    const { runner } = await gateways.for(profile);
    const body = await this.rebuiltBody(profile, attempt, form);
    const options = body === undefined ? {} : { body };
    const needs = fieldsToReenter(attempt);

    if (attempt.kind === 'payout' && attempt.state !== 'succeeded' && attempt.state !== 'rejected') {
      await repos.audit.append({ actor: how.actor, action: 'payout.resume', profileId: profile.id, subject: attempt.reference, details: { idempotencyKey: attempt.idempotencyKey, state: attempt.state } });
    }

    let outcome: AttemptOutcome;
    if (attempt.state === 'unknown') {
      // Looked up by its own reference first: found, it is settled and nothing is sent.
      const request: ReadRequest = { subject: KIND_OF_ATTEMPT[attempt.kind], reference: attempt.reference };
      // A payout whose gateway has said it cannot read by merchantReference is not asked again (notAsked).
      const read = await this.ctx.lookUp(profile, request, how.wait);
      outcome = await runner.settleByRead(attempt.idempotencyKey, read.answer ?? { kind: 'not_sent', reason: read.detail ?? read.result });
      // Not at the gateway: the first request never arrived, so resending it under its key is safe.
      // A payout the gateway could not look up, or cannot by that key, is resent under its key too:
      // the gateway answers a key it knows with its first answer (the spec reads payouts only by the
      // lost payout_id).
      const resendable = outcome.state === 'unknown' && (outcome.lookup === 'not_found' || attempt.kind === 'payout');
      if (resendable && how.resend !== false) outcome = await runner.resume(attempt.idempotencyKey, options);
    } else if (how.resend !== false) {
      outcome = await runner.resume(attempt.idempotencyKey, options);
    } else {
      outcome = await runner.resolveByStatus(attempt.idempotencyKey); // not unknown: read from the store, nothing sent
    }
    return this.submitter.settle(profile, attempt.idempotencyKey, outcome, { needs });
  }

  private async require(key: string): Promise<Attempt> {
    const attempt = await this.ctx.deps.repos.attempts.byKey(key);
    if (!attempt) throw new ServiceError('not_found', `No attempt with Idempotency-Key ${key}.`, { key: 'is not a recorded attempt' });
    return attempt;
  }

  /**
   * The exact request again, for an attempt whose card data was never stored: the stored
   * (redacted) body with the re-entered values put back and the JWT signed anew. The runner
   * refuses it unless it matches the stored request hash.
   */
  private async rebuiltBody(profile: Profile, attempt: Attempt, form: AttemptResumeForm): Promise<CreateRequests[CreateEndpoint] | undefined> {
    const needs = fieldsToReenter(attempt);
    const givenAny = needs.some((field) => form[field] !== undefined);
    if (needs.length === 0 || !givenAny) return undefined;
    const problems = new FieldProblems();
    for (const field of needs) if (form[field] === undefined) problems.add(field, 'is required to resend this attempt');
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
          token = await this.tokens.usableToken(profile, form.tokenId ?? 0);
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
