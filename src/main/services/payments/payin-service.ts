// Pay-ins of every method: create (validated first, sent exactly once), look up, read the status.
import type { AttemptView, PayinCreateForm, PayinView, StatusReadView, SubmitResult } from '../../../shared/contract';
import type { PayinStatusResponse } from '../../../shared/spec/schemas';
import type { PayinCreateInput } from '../../gateway/endpoints';
import type { CallResult } from '../../gateway/result';
import type { PayinRecord } from '../../ledger/repositories/payins';
import type { Profile } from '../../ledger/repositories/profiles';
import { payinCreateBody, type PayinContext } from './bodies';
import { cardFacts } from './card-facts';
import type { PaymentsContext } from './context';
import type { Submitter } from './submitter';
import { attemptView, payinView, statusReadView } from './views';

export interface PayinRef {
  profileId?: string | undefined;
  id?: number | undefined;
  requestId?: string | undefined;
  payinId?: string | undefined;
}

export class PayinService {
  constructor(
    private readonly ctx: PaymentsContext,
    private readonly submitter: Submitter,
  ) {}

  /** What a pay-in body is built from besides the form: the profile's ids, its notification URL, a fresh reference. */
  payinContext(profile: Profile): PayinContext {
    const { repos, ids, notificationUrl } = this.ctx.deps;
    return {
      profile,
      notificationUrl: notificationUrl(profile),
      newReference: () => ids.uuid(),
      requestIdTaken: async (requestId) => (await repos.payins.byRequestId(profile.id, requestId)) !== undefined,
    };
  }

  async create(form: PayinCreateForm): Promise<SubmitResult> {
    const profile = await this.ctx.sendingProfile(form.profileId);
    const body = (await payinCreateBody(form, this.payinContext(profile))) as unknown as PayinCreateInput;
    return this.submitter.payin(profile, 'payin_create', body, cardFacts({ number: body.cardNum, expMonth: body.cardExpireMonth, expYear: body.cardExpireYear }));
  }

  async find(ref: PayinRef): Promise<PayinRecord> {
    return this.ctx.findTransaction(this.ctx.repos.payins, { profileId: ref.profileId, id: ref.id, reference: ref.requestId, gatewayId: ref.payinId }, 'pay-in');
  }

  async get(ref: PayinRef): Promise<{ payin: PayinView; attempts: AttemptView[]; statusReads: StatusReadView[] }> {
    const { repos } = this.ctx;
    const record = await this.find(ref);
    return {
      payin: await payinView(record, repos),
      attempts: (await repos.attempts.forReference(record.profileId, record.requestId)).map(attemptView),
      statusReads: (await repos.statusReads.forPayin(record.id)).map((r) => statusReadView(r)),
    };
  }

  /**
   * POST /payment/get-status by payin_id or request_id, through the shared StatusReader (the
   * verifier's rate limit, recorded in status_reads, applied forward-only, contradicted claims
   * re-marked). Rate limited: answers at once with result "rate_limited" and when to retry. When
   * it finds a pay-in whose create attempt is still unknown, the attempt is settled by this same
   * answer (through the runner, so it never races a send of the same attempt).
   */
  async readStatus(input: { profileId?: string | undefined; payinId?: string | undefined; requestId?: string | undefined }): Promise<{ read: StatusReadView; payin: PayinView | null }> {
    const profile = await this.ctx.profile(input.profileId);
    const { repos } = this.ctx.deps;
    const outcome = await this.ctx.readStatus(profile, { subject: 'payin', gatewayId: input.payinId, reference: input.requestId });
    if (outcome.rowId !== null && outcome.answer) await this.settleAttemptByRead(outcome.rowId, outcome.answer);
    const current = outcome.rowId === null ? undefined : await repos.payins.byId(outcome.rowId);
    return { read: statusReadView(outcome.read, outcome.retryAfterSeconds), payin: current ? await payinView(current, repos) : null };
  }

  /**
   * A status read (a person's, the verifier's, the sweep's, the status poller's) that found a
   * pay-in whose create attempt is still unknown settles that attempt with the same answer,
   * through the runner (no request of its own, never racing a send of the same attempt).
   */
  async settleAttemptByRead(rowId: number, answer: CallResult<unknown>): Promise<void> {
    const { repos, gateways, profiles } = this.ctx.deps;
    const row = await repos.payins.byId(rowId);
    const attempt = row === undefined || row.attemptId === null ? undefined : await repos.attempts.byId(row.attemptId);
    if (attempt?.state !== 'unknown' || answer.kind !== 'ok') return;
    const profile = await profiles.require(attempt.profileId);
    const { runner } = await gateways.for(profile);
    const settled = await runner.settleByRead(attempt.idempotencyKey, answer as CallResult<PayinStatusResponse>);
    await this.submitter.settle(profile, attempt.idempotencyKey, settled);
  }
}
