// Sends create calls exactly once and records what became of them. The intent (the attempt with
// its fresh Idempotency-Key and request hash, and the transaction row) is committed in one
// transaction, and that commit awaited, before the first byte leaves; the AttemptRunner then sends, retrying
// transient failures with the same key and bytes; the answer is applied forward-only, and
// notifications that arrived first (orphans) are matched. A payout's attempt is recorded already
// "sending" (AttemptRunner.claim), and its answer is recorded and applied in one transaction: two
// commits per payout, the intent and the answer. A batch commits several of each at once. The
// claim is sent the moment its intent's commit resolves (nothing may fail or wait in between, or
// it would stay "sending" with nothing sent), and forgotten if the intent rolls back. No
// transaction is ever open across a send. A transaction sent
// with a notification link the gateway cannot reach (a loopback address, from a sandbox or live
// profile) is marked so on its row, and once answered its status is polled instead (pollStatus).
import type { PayoutView, SubmitResult } from '../../../shared/contract';
import { isJsonObject } from '../../../shared/json';
import { notificationReach } from '../../../shared/notification-reach';
import { beneficiaryKey } from '../../../shared/payout-destination';
import { maskPansIn } from '../../../shared/redact';
import { nextStep } from '../../gateway/advice';
import type { AttemptOutcome, AttemptRunner, SendOptions, SentOutcome } from '../../gateway/attempt-runner';
import type { CreateRequests, PayoutCreateInput } from '../../gateway/endpoints';
import type { Attempt } from '../../ledger/repositories/attempts';
import type { Repositories } from '../../ledger/repositories/index';
import type { NewAuditEntry } from '../../ledger/repositories/audit-log';
import type { PayinKind, PayinRecord } from '../../ledger/repositories/payins';
import type { PayoutRecord } from '../../ledger/repositories/payouts';
import type { Profile } from '../../ledger/repositories/profiles';
import type { CardFacts } from '../../ledger/repositories/cards';
import { ServiceError } from '../errors';
import { KIND_OF_ATTEMPT, TRANSACTION_KINDS, type TransactionKind } from '../../transaction-kinds';
import { applyCreateBody, applyRefusal } from './apply';
import { cardFacts } from './card-facts';
import type { PaymentsContext } from './context';
import { attemptView, payinView, payoutView, payoutViewOf } from './views';
import { payoutPush, publishPush } from './pushes';

export type PayinEndpoint = 'payin_create' | 'tokenization_create' | 'token_charge_create';

const PAYIN_KIND: Record<PayinEndpoint, PayinKind> = {
  payin_create: 'payin',
  tokenization_create: 'tokenization',
  token_charge_create: 'token_charge',
};

/** The link sent, when the gateway cannot post to it: the row is marked, its status polled. */
const unreachableLink = (profile: Profile, link: unknown): string | null =>
  typeof link === 'string' && !notificationReach(profile.environment, link).reachable ? link : null;

const decimalText = (amount: CreateRequests[keyof CreateRequests]['amount']): string => (typeof amount === 'string' ? amount : amount.value);

/** What a caller (a batch, an approval) records in the same transaction as the payout's intent. */
export interface PayoutHooks {
  /**
   * First of all, before the reference is checked: whatever decides whether this payout is to be
   * sent at all (an approval's decision). What it refuses is refused for that reason, never as a
   * reference already used by the payout of whoever decided first.
   */
  beforePrepare?: () => void | Promise<void>;
  /** Once the attempt and the payout row exist: whatever refers to them is committed with them (awaited, in the same transaction). */
  afterPrepare?: (key: string, payoutRowId: number) => void | Promise<void>;
}

/** A payout whose intent is committed (attempt claimed for sending, payout row, audit entry): send it at once. */
export interface PreparedPayout {
  profile: Profile;
  runner: AttemptRunner;
  key: string;
  rowId: number;
  /** The payout as recorded (its attempt "sending"): what is pushed as its request leaves, with no read. */
  view: PayoutView;
}

/** A prepared payout's outcome, not yet recorded: record() inside a transaction, then recorded() once committed. */
export interface AnsweredPayout {
  prepared: PreparedPayout;
  outcome: SentOutcome;
  /** How the renderer would word the outcome (a batch item keeps it as its error). */
  message: string;
  /** Records the outcome on the attempt and applies it to the payout row, forward-only. */
  record: () => Promise<void>;
  /** When record() could not be committed: the attempt becomes unknown (best effort, never rejects), so a resume settles it. */
  abandon: (reason: string) => Promise<void>;
}

export interface SettleOptions {
  /** Input fields a resume needs when the outcome is needs_body. */
  needs?: string[];
}

export class Submitter {
  constructor(private readonly ctx: PaymentsContext) {}

  /** `card`: what the row keeps of the card that pays (masked), when there is one. */
  async payin<E extends PayinEndpoint>(profile: Profile, endpoint: E, body: CreateRequests[E], card: CardFacts | null = null): Promise<SubmitResult> {
    const { repos, gateways } = this.ctx.deps;
    const session = await gateways.for(profile);
    const { runner } = session;
    const { key, rowId } = await repos.transaction(async () => {
      if (await repos.payins.byRequestId(profile.id, body.request_id)) {
        throw new ServiceError('conflict', `request_id ${body.request_id} is already used by a pay-in of this profile.`, { request_id: 'is already used' });
      }
      const key = await runner.prepare(endpoint, body);
      const attempt = (await repos.attempts.byKey(key)) as Attempt;
      const row = await repos.payins.recordRequest({
        profileId: profile.id,
        kind: PAYIN_KIND[endpoint],
        requestId: body.request_id,
        method: body.payment_method,
        amount: decimalText(body.amount),
        currency: body.currency,
        email: body.email,
        attemptId: attempt.id,
        notifyUnreachable: unreachableLink(profile, body.notification_link),
        card,
      });
      return { key, rowId: row.id };
    });
    // Committed (the transaction's promise resolved): only now may the request leave.
    await this.ctx.publish({ subject: 'payin', rowId });
    const outcome = await runner.resume(key, this.ctx.progress.reportTo(profile, session));
    this.ctx.deps.onCreated?.('payin', outcome.state);
    return this.settle(profile, key, outcome);
  }

  /**
   * A payout is a user action that sends money: its audit entry is written with the intent, before
   * sending; hooks join that transaction (an approval's decision, the key it sent under).
   */
  async payout(profile: Profile, body: PayoutCreateInput, audit: PayoutAudit, hooks: PayoutHooks = {}): Promise<SubmitResult> {
    const { repos } = this.ctx.deps;
    const session = await this.ctx.deps.gateways.for(profile);
    const prepared = await this.preparePayout(profile, session.runner, body, audit, hooks);
    const answered = await this.sendPayout(prepared, this.ctx.progress.reportTo(profile, session));
    try {
      await repos.transaction(answered.record);
    } catch (error) {
      await answered.abandon('internal error while recording the answer');
      throw error;
    }
    await this.payoutRecorded(answered);
    const attempt = (await repos.attempts.byKey(answered.prepared.key)) as Attempt;
    return this.describe(attempt, answered.outcome, await repos.payouts.byId(answered.prepared.rowId), []);
  }

  /**
   * Records a payout's intent in one transaction (a savepoint of the caller's, when one is open:
   * a batch records several items' intents with one commit), resolving once it is committed:
   * hooks.beforePrepare, the reference is free, the limits allow it, then the attempt (already
   * "sending"), the payout row, the audit entry and whatever hooks.afterPrepare adds, each awaited
   * in turn. Rejects, recording
   * nothing and keeping nothing in memory, if any of it refuses. The caller calls sendPayout the
   * moment it is committed, or, if its own transaction rolls back, prepared.runner.forget(prepared.key).
   */
  async preparePayout(profile: Profile, runner: AttemptRunner, body: PayoutCreateInput, audit: PayoutAudit, hooks: PayoutHooks = {}): Promise<PreparedPayout> {
    const { repos, payoutGuard } = this.ctx.deps;
    const claimed: string[] = [];
    try {
      return await repos.transaction(async () => {
        await hooks.beforePrepare?.();
        if (await repos.payouts.byMerchantReference(profile.id, body.merchantReference)) {
          throw new ServiceError('conflict', `merchantReference ${body.merchantReference} is already used by a payout of this profile.`, { merchantReference: 'is already used' });
        }
        await payoutGuard?.(profile, body);
        const key = await runner.claim('payout_create', body);
        claimed.push(key);
        const attempt = (await repos.attempts.byKey(key)) as Attempt;
        const card = payoutCard(body);
        const row = await repos.payouts.recordRequest({
          profileId: profile.id,
          merchantReference: body.merchantReference,
          beneficiaryKey: beneficiaryKey(body.method, body.paymentDetails, card),
          method: body.method,
          amount: decimalText(body.amount),
          currency: body.currency,
          email: body.customer.email,
          attemptId: attempt.id,
          notifyUnreachable: unreachableLink(profile, body.notificationUrl),
          card,
        });
        await repos.audit.append({ ...audit, details: { ...audit.details, idempotencyKey: key, payoutRowId: row.id } });
        await hooks.afterPrepare?.(key, row.id);
        return { profile, runner, key, rowId: row.id, view: payoutViewOf(row, attempt, card ?? undefined) };
      });
    } catch (error) {
      // Rolled back: the claim was never made, and its bytes (a card payout's full number) must not stay in memory.
      for (const key of claimed) runner.forget(key);
      throw error;
    }
  }

  /**
   * Sends a prepared payout (its intent committed) and returns the outcome unrecorded: the caller
   * commits record() with whatever follows from it, then calls payoutRecorded(). The send starts
   * at once, before anything else is awaited; the row's push goes out alongside, and its failure
   * changes nothing.
   */
  async sendPayout(prepared: PreparedPayout, options: SendOptions = {}): Promise<AnsweredPayout> {
    const { repos, events } = this.ctx.deps;
    const sending = prepared.runner.sendClaimed(prepared.key, options);
    try {
      events.publish('payouts:payout-changed', prepared.view);
    } catch {
      // A push is a courtesy to the renderer; the answer on its way must still be recorded.
    }
    const sent = await sending;
    this.ctx.deps.onCreated?.('payout', sent.outcome.state);
    return {
      prepared,
      outcome: sent.outcome,
      message: message(sent.outcome, 'payout'),
      record: async () => {
        await sent.record();
        await applyOutcome(repos, 'payout', prepared.rowId, sent.outcome);
      },
      abandon: sent.abandon,
    };
  }

  /**
   * Once an answered payout is committed: notifications that came first are matched, the row is
   * pushed, and its status is polled if its notifications cannot arrive (known since it was recorded).
   */
  async payoutRecorded(answered: AnsweredPayout): Promise<void> {
    const { rowId, view } = answered.prepared;
    const { repos, applier, events } = this.ctx.deps;
    const found = await repos.payouts.withViewFacts(rowId);
    if (!found) return;
    // Orphans applied now changed the row: pushed as it is after them, else as just read.
    if ((await applier.matchOrphansOf(found.record)).length > 0) await this.ctx.publish({ subject: 'payout', rowId });
    else publishPush(events, payoutPush(found));
    if (view.notificationsUnreachable !== null) await this.ctx.deps.pollStatus?.('payout', rowId);
  }

  /** Applies an attempt's outcome to its transaction row and describes it for the renderer. */
  async settle(profile: Profile, key: string, outcome: AttemptOutcome, options: SettleOptions = {}): Promise<SubmitResult> {
    const { repos, applier } = this.ctx.deps;
    const attempt = await repos.attempts.byKey(key);
    if (!attempt) throw new ServiceError('not_found', `No attempt with Idempotency-Key ${key}.`);
    const kind = KIND_OF_ATTEMPT[attempt.kind];
    const store = TRANSACTION_KINDS[kind].store(repos);
    let row: PayinRecord | PayoutRecord | undefined = await store.byReference(profile.id, attempt.reference);

    if (row) {
      const rowId = row.id;
      await repos.transaction(() => applyOutcome(repos, kind, rowId, outcome));
      await applier.matchOrphans(kind, rowId);
      await this.ctx.publish({ subject: kind, rowId });
      await this.ctx.deps.pollStatus?.(kind, rowId);
      row = await store.byId(rowId);
    }
    return this.describe((await repos.attempts.byKey(key)) ?? attempt, outcome, row, options.needs ?? []);
  }

  private async describe(attempt: Attempt, outcome: AttemptOutcome, row: PayinRecord | PayoutRecord | undefined, needs: string[]): Promise<SubmitResult> {
    const { repos } = this.ctx.deps;
    const step = nextStep(outcome);
    const tries = 'tries' in outcome ? outcome.tries : 0;
    return {
      outcome: outcome.state,
      tries,
      message: message(outcome, attempt.kind),
      nextStep: { action: step.action, text: step.text, ...(step.action === 'new_attempt' && step.afterSeconds !== undefined ? { afterSeconds: step.afterSeconds } : {}) },
      attempt: attemptView(attempt),
      payin: row && 'requestId' in row ? await payinView(row, repos) : null,
      payout: row && 'merchantReference' in row ? await payoutView(row, repos) : null,
      gatewayError: outcome.state === 'rejected' ? gatewayError(outcome.httpStatus, outcome.body) : null,
      needs: outcome.state === 'needs_body' ? needs : [],
    };
  }
}

/** The masked card of a card payout (the destination the money goes to); null for other methods. */
function payoutCard(body: PayoutCreateInput): CardFacts | null {
  const details = body.paymentDetails;
  return details.method === 'credit_card' ? cardFacts({ number: details.cardNum, expMonth: details.cardExpireMonth, expYear: details.cardExpireYear }) : null;
}

function gatewayError(httpStatus: number, body: Record<string, unknown>) {
  const details: Record<string, string> = {};
  if (isJsonObject(body.details)) {
    for (const [field, problem] of Object.entries(body.details)) details[field] = maskPansIn(typeof problem === 'string' ? problem : JSON.stringify(problem) ?? '');
  }
  const str = (v: unknown) => (typeof v === 'string' ? maskPansIn(v) : typeof v === 'number' ? String(v) : null);
  return { httpStatus, statusCode: str(body.status_code), reasonCode: str(body.reason_code), errorCode: str(body.error_code), message: str(body.message), details };
}

type PayoutAudit = Omit<NewAuditEntry, 'details'> & { details: Record<string, unknown> };

/**
 * A create answer (2.2, a payout's, or a refusal's code) on its transaction row, forward-only. A
 * status read that settled the attempt was applied by the StatusReader when it read it.
 */
async function applyOutcome(repos: Repositories, kind: TransactionKind, rowId: number, outcome: AttemptOutcome): Promise<void> {
  if (outcome.state === 'succeeded' && outcome.source === 'create') await applyCreateBody(repos, kind, rowId, outcome.body as Record<string, unknown>);
  else if (outcome.state === 'rejected') await applyRefusal(repos, kind, rowId, outcome.body);
}

function message(outcome: AttemptOutcome, kind: Attempt['kind']): string {
  const describeStatus = (status: unknown) => {
    const info = TRANSACTION_KINDS[KIND_OF_ATTEMPT[kind]].describeStatus(status);
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
      const text = outcome.body.message ? `: ${maskPansIn(outcome.body.message)}` : '';
      return `The gateway refused the request (HTTP ${outcome.httpStatus}${reason})${text}. It is never resent automatically.`;
    }
    case 'unknown':
      return `Outcome unknown (${maskPansIn(outcome.reason)}). It is not failed: read its status or resume it with the same Idempotency-Key; never start a new attempt for it.`;
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
