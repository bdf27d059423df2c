// Payouts of the four methods: create (validated first, audited, sent exactly once), look up,
// read the status. Spec 4, rule 3: payouts and their status reads do not exist in the sandbox.
import type { AttemptView, PayoutCreateForm, PayoutView, StatusReadView, SubmitResult } from '../../../shared/contract';
import { maskPan } from '../../../shared/redact';
import type { PayoutCreateInput } from '../../gateway/endpoints';
import type { PayoutRecord } from '../../ledger/repositories/payouts';
import type { Profile } from '../../ledger/repositories/profiles';
import { ServiceError } from '../errors';
import { payoutCreateBody } from './bodies';
import type { PaymentsContext } from './context';
import type { AnsweredPayout, PayoutHooks, PreparedPayout, Submitter } from './submitter';
import { attemptView, payoutView, statusReadView } from './views';

export function refuseSandboxPayouts(profile: Profile): void {
  if (profile.environment === 'sandbox') {
    throw new ServiceError('unavailable', `Payouts are unavailable in the provider sandbox (spec section 4, rule 3): profile "${profile.name}" cannot create or read payouts. Use the local emulator or a live profile.`);
  }
}

const ends = (value: unknown, head: number, tail: number): string | undefined =>
  typeof value === 'string' ? (value.length <= head + tail ? '*'.repeat(value.length) : `${value.slice(0, head)}…${value.slice(-tail)}`) : undefined;

/** Where the money goes, recognisable but not usable (the audit log keeps this, never the full number). */
export function describeDestination(details: Record<string, unknown>): string {
  switch (details.method) {
    case 'credit_card':
      return `card ${typeof details.cardNum === 'string' ? maskPan(details.cardNum) : '?'}`;
    case 'open_banking':
      return `IBAN ${ends(details.iban, 4, 4) ?? '?'}`;
    case 'crypto':
      return `${String(details.network ?? '?')} wallet ${ends(details.walletAddress, 6, 4) ?? '?'}`;
    case 'fps':
      return `sort code ${String(details.sortCode ?? '?')} account ****${typeof details.accountNumber === 'string' ? details.accountNumber.slice(-4) : '?'}`;
    default:
      return 'unknown destination';
  }
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

  async create(form: PayoutCreateForm): Promise<SubmitResult> {
    const profile = this.ctx.profile(form.profileId);
    refuseSandboxPayouts(profile);
    const body = this.body(form, profile);
    return this.submitter.payout(profile, body, this.audit(profile, body, {}));
  }

  /** A profile's gateway session for prepare(): refused for a sandbox; the merchant-token is read now. */
  async session(profileId: string | undefined): Promise<PayoutSession> {
    const profile = this.ctx.profile(profileId);
    refuseSandboxPayouts(profile);
    const { runner } = await this.ctx.deps.gateways.for(profile);
    return { profile, runner };
  }

  /**
   * Validates and records a payout's intent (the manual path's checks, limits and audit entry),
   * synchronously: inside the caller's transaction when one is open, so a batch commits several
   * items at once. Throws, recording nothing, when the row is refused. Send it with send() as soon
   * as it is committed.
   */
  prepare(form: PayoutCreateForm, session: PayoutSession, extra: { auditDetails?: Record<string, unknown>; hooks?: PayoutHooks } = {}): PreparedPayout {
    const body = this.body(form, session.profile);
    return this.submitter.preparePayout(session.profile, session.runner, body, this.audit(session.profile, body, extra.auditDetails ?? {}), extra.hooks);
  }

  /** Sends a prepared payout; the outcome comes back unrecorded, for the caller's transaction (Submitter.sendPayout). */
  send(prepared: PreparedPayout): Promise<AnsweredPayout> {
    return this.submitter.sendPayout(prepared);
  }

  /** Once an answered payout is committed: orphans matched, the row pushed. */
  recorded(answered: AnsweredPayout): void {
    this.submitter.payoutRecorded(answered);
  }

  /** The request body in the spec's field names, completed from the profile and checked with the shared validator. */
  private body(form: PayoutCreateForm, profile: Profile): PayoutCreateInput {
    const { repos, ids, notificationUrl } = this.ctx.deps;
    return payoutCreateBody(form, {
      profile,
      notificationUrl: notificationUrl(profile),
      newReference: () => ids.uuid(),
      referenceTaken: (reference) => repos.payouts.byMerchantReference(profile.id, reference) !== undefined,
    }) as unknown as PayoutCreateInput;
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
        destination: describeDestination(body.paymentDetails as Record<string, unknown>),
        ...extra,
      },
    };
  }

  find(ref: PayoutRef): PayoutRecord {
    const { payouts } = this.ctx.repos;
    let record: PayoutRecord | undefined;
    if (ref.id !== undefined) {
      record = payouts.byId(ref.id);
      if (record && ref.profileId !== undefined && record.profileId !== ref.profileId) record = undefined;
    } else {
      const profile = this.ctx.profile(ref.profileId);
      record = (ref.payoutId && payouts.byPayoutId(ref.payoutId, profile.id)) || (ref.merchantReference && payouts.byMerchantReference(profile.id, ref.merchantReference)) || undefined;
    }
    if (!record) throw new ServiceError('not_found', 'No such payout in the ledger.');
    return record;
  }

  get(ref: PayoutRef): { payout: PayoutView; attempts: AttemptView[]; statusReads: StatusReadView[] } {
    const { repos } = this.ctx;
    const record = this.find(ref);
    return {
      payout: payoutView(record, repos.attempts),
      attempts: repos.attempts.forReference(record.profileId, record.merchantReference).map(attemptView),
      statusReads: repos.statusReads.forPayout(record.id).map((r) => statusReadView(r)),
    };
  }

  /**
   * POST /payouts/get-status by payout_id, through the shared StatusReader (the verifier's rate
   * limit, recorded, applied forward-only, contradicted claims re-marked). Rate limited: answers at
   * once with result "rate_limited" and when to retry.
   */
  async readStatus(input: { profileId?: string | undefined; payoutId: string }): Promise<{ read: StatusReadView; payout: PayoutView | null }> {
    const profile = this.ctx.profile(input.profileId);
    refuseSandboxPayouts(profile);
    const { repos } = this.ctx;
    const outcome = await this.ctx.readStatus(profile, { subject: 'payout', payoutId: input.payoutId });
    const current = outcome.rowId === null ? undefined : repos.payouts.byId(outcome.rowId);
    return { read: statusReadView(outcome.read, outcome.retryAfterSeconds), payout: current ? payoutView(current, repos.attempts) : null };
  }
}
