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
import type { PayoutHooks, Submitter } from './submitter';
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

  /** extra: a batch's audit details and the hooks that tie its item to the attempt atomically. */
  async create(form: PayoutCreateForm, extra: { auditDetails?: Record<string, unknown>; hooks?: PayoutHooks } = {}): Promise<SubmitResult> {
    const profile = this.ctx.profile(form.profileId);
    refuseSandboxPayouts(profile);
    const { repos, ids, notificationUrl } = this.ctx.deps;
    const body = payoutCreateBody(form, {
      profile,
      notificationUrl: notificationUrl(profile),
      newReference: () => ids.uuid(),
      referenceTaken: (reference) => repos.payouts.byMerchantReference(profile.id, reference) !== undefined,
    }) as unknown as PayoutCreateInput;
    return this.submitter.payout(profile, body, {
      actor: 'user',
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
        ...extra.auditDetails,
      },
    }, extra.hooks);
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
