// Pay-ins of every method: create (validated first, sent exactly once), look up, read the status.
import type { AttemptView, PayinCreateForm, PayinView, StatusReadView, SubmitResult } from '../../../shared/contract';
import type { PayinStatusResponse } from '../../../shared/spec/schemas';
import type { PayinCreateInput } from '../../gateway/endpoints';
import type { CallResult } from '../../gateway/result';
import type { PayinRecord } from '../../ledger/repositories/payins';
import type { Profile } from '../../ledger/repositories/profiles';
import { ServiceError } from '../errors';
import { payinCreateBody, type PayinContext } from './bodies';
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
      requestIdTaken: (requestId) => repos.payins.byRequestId(profile.id, requestId) !== undefined,
    };
  }

  async create(form: PayinCreateForm): Promise<SubmitResult> {
    const profile = this.ctx.profile(form.profileId);
    const body = payinCreateBody(form, this.payinContext(profile)) as unknown as PayinCreateInput;
    return this.submitter.payin(profile, 'payin_create', body);
  }

  find(ref: PayinRef): PayinRecord {
    const { payins } = this.ctx.repos;
    let record: PayinRecord | undefined;
    if (ref.id !== undefined) {
      record = payins.byId(ref.id);
      if (record && ref.profileId !== undefined && record.profileId !== ref.profileId) record = undefined;
    } else {
      const profile = this.ctx.profile(ref.profileId);
      record = (ref.payinId && payins.byPayinId(ref.payinId, profile.id)) || (ref.requestId && payins.byRequestId(profile.id, ref.requestId)) || undefined;
    }
    if (!record) throw new ServiceError('not_found', 'No such pay-in in the ledger.');
    return record;
  }

  get(ref: PayinRef): { payin: PayinView; attempts: AttemptView[]; statusReads: StatusReadView[] } {
    const { repos } = this.ctx;
    const record = this.find(ref);
    return {
      payin: payinView(record, repos.attempts),
      attempts: repos.attempts.forReference(record.profileId, record.requestId).map(attemptView),
      statusReads: repos.statusReads.forPayin(record.id).map((r) => statusReadView(r)),
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
    const profile = this.ctx.profile(input.profileId);
    const { repos, gateways } = this.ctx.deps;
    const outcome = await this.ctx.readStatus(profile, { subject: 'payin', payinId: input.payinId, requestId: input.requestId });
    const row = outcome.rowId === null ? undefined : repos.payins.byId(outcome.rowId);
    const attempt = row === undefined || row.attemptId === null ? undefined : repos.attempts.byId(row.attemptId);
    if (attempt?.state === 'unknown' && outcome.answer?.kind === 'ok') {
      const { runner } = await gateways.for(profile);
      const settled = await runner.settleByRead(attempt.idempotencyKey, outcome.answer as CallResult<PayinStatusResponse>);
      this.submitter.settle(profile, attempt.idempotencyKey, settled);
    }
    const current = row ? repos.payins.byId(row.id) : undefined;
    return { read: statusReadView(outcome.read, outcome.retryAfterSeconds), payin: current ? payinView(current, repos.attempts) : null };
  }
}
