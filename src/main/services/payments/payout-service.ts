// Payouts of the four methods: create (validated first, audited, sent exactly once), look up,
// read the status. Spec 4, rule 3: payouts and their status reads do not exist in the sandbox.
import type { ApprovalNeed, AttemptView, PayoutCreateForm, PayoutCreateRequest, PayoutMatch, PayoutReviewView, PayoutView, StatusReadView, SubmitResult } from '../../../shared/contract';
import { describeDestination } from '../../../shared/payout-destination';
import type { PayoutCreateInput } from '../../gateway/endpoints';
import { serializeCreateBody } from '../../gateway/serialize';
import type { PayoutRecord } from '../../ledger/repositories/payouts';
import type { Profile } from '../../ledger/repositories/profiles';
import { ServiceError } from '../errors';
import { payoutCreateBody } from './bodies';
import { DEFAULT_DUPLICATE_WINDOW_DAYS, describeMatches, unconfirmed } from './duplicate-guard';
import type { PaymentsContext } from './context';
import type { ReviewSubject } from './review-gate';
import { reviewedPayout, reviewTicket } from './review-views';
import type { AnsweredPayout, PayoutHooks, PreparedPayout, Submitter } from './submitter';
import { attemptView, payoutView, statusReadView } from './views';

const amountOf = (body: PayoutCreateInput): string => (typeof body.amount === 'string' ? body.amount : body.amount.value);

export function refuseSandboxPayouts(profile: Profile): void {
  if (profile.environment === 'sandbox') {
    throw new ServiceError('unavailable', `Payouts are unavailable in the provider sandbox (spec section 4, rule 3): profile "${profile.name}" cannot create or read payouts. Use the local emulator or a live profile.`);
  }
}

/** What a payout's review covers: exactly the bytes its create call sends. */
export function payoutReviewSubject(profile: Profile, body: PayoutCreateInput): ReviewSubject {
  return { kind: 'payout', profileId: profile.id, content: serializeCreateBody<'payout_create'>(body) };
}

/** A profile with its gateway runner, for preparing payouts (PayoutService.session). */
export type PayoutSession = Pick<PreparedPayout, 'profile' | 'runner'>;

export interface PayoutRef {
  profileId?: string | undefined;
  id?: number | undefined;
  merchantReference?: string | undefined;
  payoutId?: string | undefined;
}

export class PayoutService {
  constructor(
    private readonly ctx: PaymentsContext,
    private readonly submitter: Submitter,
  ) {}

  /**
   * The review step, in main: the form completed and validated exactly as create() would send it
   * (merchantReference assigned if empty), what the person must check, and the review id that a
   * live create needs. Nothing is recorded or sent.
   */
  async review(form: PayoutCreateForm): Promise<PayoutReviewView> {
    const profile = await this.ctx.sendingProfile(form.profileId);
    refuseSandboxPayouts(profile);
    const body = await this.body(form, profile);
    const { reviews, checkLimits } = this.ctx.deps;
    const limits = await checkLimits(profile, body.currency, amountOf(body));
    return {
      ...(await reviews.issue(payoutReviewSubject(profile, body))),
      ...reviewTicket(profile, body.notificationUrl),
      payout: reviewedPayout(body as unknown as Record<string, unknown>),
      limits,
      approval: await this.approvalNeed(profile, body),
      duplicates: await this.duplicatesOf(profile, body),
      duplicateWindowDays: (await this.ctx.deps.duplicates?.windowDays()) ?? DEFAULT_DUPLICATE_WINDOW_DAYS,
    };
  }

  /** The earlier payouts this one may repeat: same profile, beneficiary account, amount and currency within the window. */
  private async duplicatesOf(profile: Profile, body: PayoutCreateInput): Promise<PayoutMatch[]> {
    const guard = this.ctx.deps.duplicates;
    if (!guard) return [];
    const details = body.paymentDetails as unknown as Record<string, unknown>;
    const number = typeof details.cardNum === 'string' ? details.cardNum.replace(/\D/g, '') : '';
    // A card is compared on its first 6 / last 4 only, as the ledger keeps it.
    const card = number.length >= 10 ? { bin: number.slice(0, 6), last4: number.slice(-4) } : null;
    const [matches] = await guard.matches(profile.id, [{ method: body.method, amount: amountOf(body), currency: body.currency, paymentDetails: details, card }]);
    return matches ?? [];
  }

  /**
   * Sends a payout; on a live profile only with the proof of its review for exactly this body. One
   * the approval policy holds back is refused before its review is spent: on a team server it is
   * submitted for approval instead (approvals:request-payout), on a desk its amount is typed again.
   */
  async create(request: PayoutCreateRequest): Promise<SubmitResult> {
    const { reviewId, confirmed, typedAmount, confirmedDuplicateOf, ...form } = request;
    const { profile, body } = await this.reviewedBody(form);
    const need = await this.approvalNeed(profile, body);
    if (need.step === 'approval') {
      throw new ServiceError('conflict', `Nothing was sent: ${need.policy ?? 'the approval policy'} Submit it for approval; another person with the approver role sends it.`, { reviewId: 'submit for approval instead' });
    }
    this.ctx.deps.approvals?.requireTypedAmount(need, typedAmount);
    await this.ctx.deps.reviews.redeem({ reviewId, confirmed }, payoutReviewSubject(profile, body), profile.environment);
    // After the review's own proof (a used one is refused as such): a possible duplicate goes only
    // with the person's confirmation of each earlier payout it may repeat, required on a live
    // profile and checked wherever it is given (the review screen always gives it), as the
    // review's own proof is.
    const duplicates = await this.duplicatesOf(profile, body);
    const open = unconfirmed(duplicates, confirmedDuplicateOf);
    if (open.length > 0 && (profile.environment === 'live' || confirmedDuplicateOf !== undefined)) {
      throw new ServiceError('conflict', `Nothing was sent: this payout may pay the same people twice. ${describeMatches(open)} went to the same account with the same amount and currency within the last ${await this.ctx.deps.duplicates?.windowDays()} days. Confirm it in the review to send it anyway.`, {
        confirmedDuplicateOf: `confirm each earlier payout it may repeat: ${open.map((m) => m.id).join(', ')}`,
      });
    }
    const extra = {
      ...(reviewId === undefined ? {} : { reviewId }),
      ...(need.step === 'typed_amount' ? { confirmedByTypedAmount: need.policy } : {}),
      // Audited: the earlier payouts the person confirmed this one may repeat.
      ...(duplicates.length > 0 ? { confirmedDuplicateOf: duplicates } : {}),
    };
    return this.submitter.payout(profile, body, this.audit(profile, body, extra));
  }

  /** The body create() would send for this form, on its profile (checked as create checks it). */
  async reviewedBody(form: PayoutCreateForm): Promise<{ profile: Profile; body: PayoutCreateInput }> {
    const profile = await this.ctx.sendingProfile(form.profileId);
    refuseSandboxPayouts(profile);
    return { profile, body: await this.body(form, profile) };
  }

  /** What the approval policy asks of this payout. */
  async approvalNeed(profile: Profile, body: PayoutCreateInput): Promise<ApprovalNeed> {
    return (await this.ctx.deps.approvals?.forPayout(profile, body.currency, amountOf(body))) ?? { step: 'none', policy: null, amount: null, currency: null };
  }

  /**
   * A payout an approver approved (services/approvals): sent exactly as reviewed, its audit entry
   * naming the approval; hooks record the decision (first) and the key it sent under in the
   * intent's transaction.
   */
  sendApproved(profile: Profile, body: PayoutCreateInput, details: Record<string, unknown>, hooks: PayoutHooks): Promise<SubmitResult> {
    return this.submitter.payout(profile, body, this.audit(profile, body, details), hooks);
  }

  /** A profile's gateway session for prepare(): refused for a sandbox; the merchant-token is read now. */
  async session(profileId: string | undefined): Promise<PayoutSession> {
    const profile = await this.ctx.sendingProfile(profileId);
    refuseSandboxPayouts(profile);
    const { runner } = await this.ctx.deps.gateways.for(profile);
    return { profile, runner };
  }

  /**
   * Validates and records a payout's intent (the manual path's checks, limits and audit entry):
   * inside the caller's transaction when one is open (call it from that transaction's async
   * context), so a batch commits several items at once. Rejects, recording nothing, when the row
   * is refused. Send it with send() as soon as it is committed.
   */
  async prepare(form: PayoutCreateForm, session: PayoutSession, extra: { auditDetails?: Record<string, unknown>; hooks?: PayoutHooks } = {}): Promise<PreparedPayout> {
    const body = await this.body(form, session.profile);
    return this.submitter.preparePayout(session.profile, session.runner, body, this.audit(session.profile, body, extra.auditDetails ?? {}), extra.hooks);
  }

  /** Sends a prepared payout; the outcome comes back unrecorded, for the caller's transaction (Submitter.sendPayout). */
  send(prepared: PreparedPayout): Promise<AnsweredPayout> {
    return this.submitter.sendPayout(prepared);
  }

  /** Once an answered payout is committed: orphans matched, the row pushed. */
  recorded(answered: AnsweredPayout): Promise<void> {
    return this.submitter.payoutRecorded(answered);
  }

  /** The request body in the spec's field names, completed from the profile and checked with the shared validator. */
  private async body(form: PayoutCreateForm, profile: Profile): Promise<PayoutCreateInput> {
    const { repos, ids, notificationUrl } = this.ctx.deps;
    return (await payoutCreateBody(form, {
      profile,
      notificationUrl: notificationUrl(profile),
      newReference: () => ids.uuid(),
      referenceTaken: async (reference) => (await repos.payouts.byMerchantReference(profile.id, reference)) !== undefined,
    })) as unknown as PayoutCreateInput;
  }

  private audit(profile: Profile, body: PayoutCreateInput, extra: Record<string, unknown>) {
    return {
      actor: 'user' as const,
      action: 'payout.create',
      profileId: profile.id,
      subject: body.merchantReference,
      details: {
        environment: profile.environment,
        method: body.method,
        amount: body.amount,
        currency: body.currency,
        country: body.country,
        beneficiary: `${body.customer.firstName} ${body.customer.lastName}`,
        destination: describeDestination(body.method, body.paymentDetails),
        ...extra,
      },
    };
  }

  async find(ref: PayoutRef): Promise<PayoutRecord> {
    return this.ctx.findTransaction(this.ctx.repos.payouts, { profileId: ref.profileId, id: ref.id, reference: ref.merchantReference, gatewayId: ref.payoutId }, 'payout');
  }

  async get(ref: PayoutRef): Promise<{ payout: PayoutView; attempts: AttemptView[]; statusReads: StatusReadView[] }> {
    const { repos } = this.ctx;
    const record = await this.find(ref);
    return {
      payout: await payoutView(record, repos),
      attempts: (await repos.attempts.forReference(record.profileId, record.merchantReference)).map(attemptView),
      statusReads: (await repos.statusReads.forPayout(record.id)).map((r) => statusReadView(r)),
    };
  }

  /**
   * POST /payouts/get-status by payout_id (else merchantReference), through the shared
   * StatusReader (the verifier's rate limit, recorded, applied forward-only, contradicted claims
   * re-marked). Rate limited: answers at once with result "rate_limited" and when to retry. By
   * merchantReference on a gateway that has said it cannot read that way: refused, saying so.
   */
  async readStatus(input: { profileId?: string | undefined; payoutId?: string | undefined; merchantReference?: string | undefined }): Promise<{ read: StatusReadView; payout: PayoutView | null }> {
    const profile = await this.ctx.profile(input.profileId);
    refuseSandboxPayouts(profile);
    const { repos } = this.ctx;
    const outcome = await this.ctx.readStatus(profile, { subject: 'payout', gatewayId: input.payoutId, reference: input.merchantReference });
    const current = outcome.rowId === null ? undefined : await repos.payouts.byId(outcome.rowId);
    return { read: statusReadView(outcome.read, outcome.retryAfterSeconds), payout: current ? await payoutView(current, repos) : null };
  }
}
