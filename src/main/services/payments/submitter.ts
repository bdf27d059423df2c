// Sends create calls exactly once and records what became of them. The intent (the attempt with
// its fresh Idempotency-Key and request hash, and the transaction row) is committed in one
// synchronous transaction before the first byte leaves; the AttemptRunner then sends, retrying
// transient failures with the same key and bytes; the answer is applied forward-only, and
// notifications that arrived first (orphans) are matched.
import type { SubmitResult } from '../../../shared/contract';
import { isJsonObject } from '../../../shared/json';
import { describePayinStatus, describePayoutStatus } from '../../../shared/spec/codes';
import { nextStep } from '../../gateway/advice';
import type { AttemptOutcome } from '../../gateway/attempt-runner';
import type { CreateRequests, PayoutCreateInput } from '../../gateway/endpoints';
import type { Attempt } from '../../ledger/repositories/attempts';
import type { NewAuditEntry } from '../../ledger/repositories/audit-log';
import type { PayinKind, PayinRecord } from '../../ledger/repositories/payins';
import type { PayoutRecord } from '../../ledger/repositories/payouts';
import type { Profile } from '../../ledger/repositories/profiles';
import { ServiceError } from '../errors';
import { applyPayinCreateAnswer, applyPayoutCreateAnswer, applyRefusal } from './apply';
import type { PaymentsContext } from './context';
import { attemptView, maskText, payinView, payoutView } from './views';

export type PayinEndpoint = 'payin_create' | 'tokenization_create' | 'token_charge_create';

const PAYIN_KIND: Record<PayinEndpoint, PayinKind> = {
  payin_create: 'payin',
  tokenization_create: 'tokenization',
  token_charge_create: 'token_charge',
};

const decimalText = (amount: CreateRequests[keyof CreateRequests]['amount']): string => (typeof amount === 'string' ? amount : amount.value);

/** What a caller (a batch) records in the same transaction as the payout's intent. */
export interface PayoutHooks {
  /** Before the attempt is prepared: throw to refuse, and nothing is recorded. */
  beforePrepare?: () => void;
  /** Once the attempt and the payout row exist: whatever refers to them is committed with them. */
  afterPrepare?: (key: string, payoutRowId: number) => void;
}

export interface SettleOptions {
  /** Input fields a resume needs when the outcome is needs_body. */
  needs?: string[];
}

export class Submitter {
  constructor(private readonly ctx: PaymentsContext) {}

  async payin<E extends PayinEndpoint>(profile: Profile, endpoint: E, body: CreateRequests[E]): Promise<SubmitResult> {
    const { db, repos, gateways } = this.ctx.deps;
    const { runner } = await gateways.for(profile);
    const { key, rowId } = db.transaction(() => {
      if (repos.payins.byRequestId(profile.id, body.request_id)) {
        throw new ServiceError('conflict', `request_id ${body.request_id} is already used by a pay-in of this profile.`, { request_id: 'is already used' });
      }
      const key = runner.prepare(endpoint, body);
      const attempt = repos.attempts.byKey(key) as Attempt;
      const row = repos.payins.recordRequest({
        profileId: profile.id,
        kind: PAYIN_KIND[endpoint],
        requestId: body.request_id,
        method: body.payment_method,
        amount: decimalText(body.amount),
        currency: body.currency,
        email: body.email,
        attemptId: attempt.id,
      });
      return { key, rowId: row.id };
    })();
    this.ctx.publish({ subject: 'payin', rowId });
    return this.settle(profile, key, await runner.resume(key));
  }

  /** A payout is a user action that sends money: its audit entry is written with the intent, before sending. */
  async payout(profile: Profile, body: PayoutCreateInput, audit: Omit<NewAuditEntry, 'details'> & { details: Record<string, unknown> }, hooks: PayoutHooks = {}): Promise<SubmitResult> {
    const { db, repos, gateways, payoutGuard } = this.ctx.deps;
    const { runner } = await gateways.for(profile);
    const { key, rowId } = db.transaction(() => {
      if (repos.payouts.byMerchantReference(profile.id, body.merchantReference)) {
        throw new ServiceError('conflict', `merchantReference ${body.merchantReference} is already used by a payout of this profile.`, { merchantReference: 'is already used' });
      }
      hooks.beforePrepare?.();
      payoutGuard?.(profile, body);
      const key = runner.prepare('payout_create', body);
      const attempt = repos.attempts.byKey(key) as Attempt;
      const row = repos.payouts.recordRequest({
        profileId: profile.id,
        merchantReference: body.merchantReference,
        method: body.method,
        amount: decimalText(body.amount),
        currency: body.currency,
        email: body.customer.email,
        attemptId: attempt.id,
      });
      repos.audit.append({ ...audit, details: { ...audit.details, idempotencyKey: key, payoutRowId: row.id } });
      hooks.afterPrepare?.(key, row.id);
      return { key, rowId: row.id };
    })();
    this.ctx.publish({ subject: 'payout', rowId });
    return this.settle(profile, key, await runner.resume(key));
  }

  /** Applies an attempt's outcome to its transaction row and describes it for the renderer. */
  settle(profile: Profile, key: string, outcome: AttemptOutcome, options: SettleOptions = {}): SubmitResult {
    const { repos, db, applier } = this.ctx.deps;
    const attempt = repos.attempts.byKey(key);
    if (!attempt) throw new ServiceError('not_found', `No attempt with Idempotency-Key ${key}.`);
    const isPayout = attempt.kind === 'payout';
    let payin = isPayout ? undefined : repos.payins.byRequestId(profile.id, attempt.reference);
    let payout = isPayout ? repos.payouts.byMerchantReference(profile.id, attempt.reference) : undefined;

    db.transaction(() => {
      if (outcome.state === 'succeeded') {
        const body = outcome.body as Record<string, unknown>;
        // Settled by a status read instead: the StatusReader recorded and applied it when it read it.
        if (outcome.source === 'create' && payin) applyPayinCreateAnswer(repos, payin, body);
        else if (outcome.source === 'create' && payout) applyPayoutCreateAnswer(repos, payout, body);
      } else if (outcome.state === 'rejected') {
        if (payin) applyRefusal(repos, { kind: 'payin', record: payin }, outcome.body);
        if (payout) applyRefusal(repos, { kind: 'payout', record: payout }, outcome.body);
      }
    })();

    if (payin) {
      applier.matchOrphans('payin', payin.id);
      this.ctx.publish({ subject: 'payin', rowId: payin.id });
      payin = repos.payins.byId(payin.id);
    }
    if (payout) {
      applier.matchOrphans('payout', payout.id);
      this.ctx.publish({ subject: 'payout', rowId: payout.id });
      payout = repos.payouts.byId(payout.id);
    }
    return this.describe(repos.attempts.byKey(key) ?? attempt, outcome, payin, payout, options.needs ?? []);
  }

  private describe(attempt: Attempt, outcome: AttemptOutcome, payin: PayinRecord | undefined, payout: PayoutRecord | undefined, needs: string[]): SubmitResult {
    const { repos } = this.ctx.deps;
    const step = nextStep(outcome);
    const tries = 'tries' in outcome ? outcome.tries : 0;
    return {
      outcome: outcome.state,
      tries,
      message: message(outcome, attempt),
      nextStep: { action: step.action, text: step.text, ...(step.action === 'new_attempt' && step.afterSeconds !== undefined ? { afterSeconds: step.afterSeconds } : {}) },
      attempt: attemptView(attempt),
      payin: payin ? payinView(payin, repos.attempts) : null,
      payout: payout ? payoutView(payout, repos.attempts) : null,
      gatewayError: outcome.state === 'rejected' ? gatewayError(outcome.httpStatus, outcome.body) : null,
      needs: outcome.state === 'needs_body' ? needs : [],
    };
  }
}

function gatewayError(httpStatus: number, body: Record<string, unknown>) {
  const details: Record<string, string> = {};
  if (isJsonObject(body.details)) {
    for (const [field, problem] of Object.entries(body.details)) details[field] = maskText(typeof problem === 'string' ? problem : JSON.stringify(problem) ?? '');
  }
  const str = (v: unknown) => (typeof v === 'string' ? maskText(v) : typeof v === 'number' ? String(v) : null);
  return { httpStatus, statusCode: str(body.status_code), reasonCode: str(body.reason_code), errorCode: str(body.error_code), message: str(body.message), details };
}

function message(outcome: AttemptOutcome, attempt: Attempt): string {
  const describeStatus = (status: unknown) => {
    const info = attempt.kind === 'payout' ? describePayoutStatus(status) : describePayinStatus(status);
    return status === undefined || status === null ? 'no status' : `status ${String(status)}: ${info.meaning}`;
  };
  switch (outcome.state) {
    case 'succeeded':
      return outcome.source === 'status_read'
        ? `A status read found it at the gateway (${describeStatus(outcome.body.status_code)}); the attempt is settled.`
        : outcome.tries === 0
          ? `Already settled: the gateway had accepted the request (${describeStatus(outcome.body.status_code)}).`
          : `The gateway accepted the request after ${outcome.tries} ${outcome.tries === 1 ? 'try' : 'tries'} (${describeStatus(outcome.body.status_code)}).`;
    case 'rejected': {
      const reason = outcome.body.reason_code ? ` ${outcome.body.reason_code}` : '';
      const text = outcome.body.message ? `: ${maskText(outcome.body.message)}` : '';
      return `The gateway refused the request (HTTP ${outcome.httpStatus}${reason})${text}. It is never resent automatically.`;
    }
    case 'unknown':
      return `Outcome unknown (${maskText(outcome.reason)}). It is not failed: read its status or resume it with the same Idempotency-Key; never start a new attempt for it.`;
    case 'busy':
      return 'Another send of this attempt is in flight; two sends of one attempt never run at once.';
    case 'needs_body':
      return outcome.why === 'missing'
        ? 'The app restarted since this attempt was recorded, and its card data was never stored: enter it again to resend with the same key.'
        : 'The data given does not match the request recorded for this attempt.';
    case 'prepared':
      return 'Recorded and never sent.';
  }
}
