// One status read of one ledger transaction, the way the verifier and the reconciliation sweep
// need it: within the client-side rate limit, an HTTP 429 waited out per Retry-After and retried
// (bounded), every answer recorded in status_reads, and what the gateway says applied to the row
// in one transaction: ids it lacked, the status (forward only), amount or currency contradictions,
// and the fate of an unverified notified claim (see TransactionsStore.applyStatus). Notifications
// whose claim the gateway contradicts are re-marked 'mismatch' so the webhook inspector shows it.
import { numberText } from '../../../shared/json';
import { compareAmounts, parseDecimal } from '../../../shared/money';
import type { PayinStatusRequest, PayoutStatusRequest } from '../../../shared/spec/schemas';
import type { GatewayClient } from '../../gateway/client';
import type { Ledger } from '../../ledger/connection';
import type { Repositories } from '../../ledger/repositories/index';
import type { Profile } from '../../ledger/repositories/profiles';
import type { StatusReadResult } from '../../ledger/repositories/status-reads';
import type { ClaimOutcome, TransactionRecord } from '../../ledger/repositories/transactions';
import { resolveClaim, statusFacts, type TransactionKind } from '../../ledger/status';
import type { Clock } from '../../ledger/support';
import { readFacts, recordRead, type ReadFacts } from '../payments/apply';
import { LimiterClosedError, type ReadRateLimiter } from './rate-limiter';

export type StatusClient = Pick<GatewayClient, 'payinStatus' | 'payoutStatus'>;

export interface StatusReaderDeps {
  db: Ledger;
  repos: Repositories;
  sessions: { for(profile: Profile): Promise<{ client: StatusClient }> };
  limiter: ReadRateLimiter;
  now: Clock;
  /** HTTP 429 answers waited out and retried per read (default 3). */
  maxRateLimitRetries?: number;
  /** A Retry-After longer than this is not waited for here: the caller reschedules (default 60 s). */
  maxRetryAfterSeconds?: number;
}

export interface StatusReadOutcome {
  subject: TransactionKind;
  rowId: number;
  /** 'skipped': nothing to read by (a payout without payout_id), or the read could not be sent. */
  result: StatusReadResult | 'skipped';
  /** The status the gateway answered (result ok). */
  statusCode: string | null;
  /** The row's status moved. */
  changed: boolean;
  claim: ClaimOutcome;
  record: TransactionRecord | undefined;
  /** HTTP 429 answers met (each recorded and waited out). */
  rateLimited: number;
  /** Seconds the gateway last asked to wait, when the read ended rate-limited. */
  retryAfterSeconds: number | null;
  /** Notifications re-marked 'mismatch' by this read. */
  contradictedNotifications: number[];
  detail: string | null;
}

type Loose = Record<string, unknown>;

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** Amount or currency the gateway states that differ from the ledger's (exact decimal comparison). */
export function moneyContradictions(row: Pick<TransactionRecord, 'amount' | 'currency'>, amount: unknown, currency: unknown): string | null {
  const found: string[] = [];
  if (amount !== undefined && amount !== null) {
    const amountText = typeof amount === 'string' ? amount : numberText(amount);
    const value = amountText === undefined ? undefined : parseDecimal(amountText);
    if (value === undefined || compareAmounts(value.toFixed(), row.amount) !== 0) found.push(`amount ${amountText ?? String(amount)} instead of ${row.amount}`);
  }
  if (typeof currency === 'string' && currency !== '' && currency !== row.currency) found.push(`currency ${currency} instead of ${row.currency}`);
  return found.length > 0 ? found.join(', ') : null;
}

export class StatusReader {
  private readonly maxRateLimitRetries: number;
  private readonly maxRetryAfterSeconds: number;

  constructor(private readonly deps: StatusReaderDeps) {
    this.maxRateLimitRetries = deps.maxRateLimitRetries ?? 3;
    this.maxRetryAfterSeconds = deps.maxRetryAfterSeconds ?? 60;
  }

  record(subject: TransactionKind, rowId: number): TransactionRecord | undefined {
    return subject === 'payin' ? this.deps.repos.payins.byId(rowId) : this.deps.repos.payouts.byId(rowId);
  }

  async read(subject: TransactionKind, rowId: number, signal?: AbortSignal): Promise<StatusReadOutcome> {
    const { repos, limiter } = this.deps;
    const before = this.record(subject, rowId);
    const outcome: StatusReadOutcome = {
      subject, rowId, result: 'skipped', statusCode: null, changed: false, claim: 'none', record: before,
      rateLimited: 0, retryAfterSeconds: null, contradictedNotifications: [], detail: null,
    };
    if (!before) return { ...outcome, detail: `no ${subject} row ${rowId}` };
    const profile = repos.profiles.get(before.profileId);
    if (!profile) return { ...outcome, detail: `profile ${before.profileId} is gone` };
    const target = this.request(subject, before, profile);
    if (!target) return { ...outcome, detail: 'no payout_id to read by (the create answer never arrived)' };

    let client: StatusClient;
    try {
      client = (await this.deps.sessions.for(profile)).client;
    } catch (error) {
      return { ...outcome, detail: `cannot reach the gateway of profile "${profile.name}": ${(error as Error).message}` };
    }
    const key = `${profile.id}|${subject}`;
    for (let attempt = 0; attempt <= this.maxRateLimitRetries; attempt++) {
      try {
        await limiter.take(key, signal);
      } catch (error) {
        if (error instanceof LimiterClosedError || signal?.aborted) return { ...outcome, detail: 'cancelled before it was sent' };
        throw error;
      }
      const requestedAt = this.deps.now();
      const answer = subject === 'payin' ? await client.payinStatus(target.request as PayinStatusRequest) : await client.payoutStatus(target.request as PayoutStatusRequest);
      const facts = readFacts(answer, target.idFields);
      const respondedAt = this.deps.now();
      if (facts.result === 'rate_limited') {
        recordRead(repos, { profileId: profile.id, kind: subject, reference: target.reference, rowId, requestBody: target.request, requestedAt, respondedAt }, facts);
        outcome.rateLimited++;
        const seconds = Math.max(1, facts.retryAfterSeconds ?? 1);
        limiter.pause(key, seconds * 1000);
        outcome.retryAfterSeconds = seconds;
        if (attempt === this.maxRateLimitRetries || seconds > this.maxRetryAfterSeconds) {
          return { ...outcome, result: 'rate_limited', detail: `still rate-limited after ${outcome.rateLimited} answers (Retry-After ${seconds} s)` };
        }
        continue;
      }
      return { ...outcome, ...this.apply(subject, rowId, profile, target, facts, requestedAt, respondedAt) };
    }
    return { ...outcome, result: 'rate_limited' };
  }

  private request(subject: TransactionKind, row: TransactionRecord, profile: Profile): { request: object; reference: string; idFields: string[] } | undefined {
    if (subject === 'payin') {
      const { payinId, requestId } = row as TransactionRecord & { payinId: string | null; requestId: string };
      return payinId
        ? { request: { merchant_id: profile.merchantId, payin_id: payinId }, reference: payinId, idFields: ['payin_id', 'request_id'] }
        : { request: { merchant_id: profile.merchantId, request_id: requestId }, reference: requestId, idFields: ['payin_id', 'request_id'] };
    }
    const { payoutId } = row as TransactionRecord & { payoutId: string | null };
    return payoutId ? { request: { merchant_id: profile.merchantId, payout_id: payoutId }, reference: payoutId, idFields: ['payout_id'] } : undefined;
  }

  /** Records the read and applies it, all in one ledger transaction. */
  private apply(
    subject: TransactionKind,
    rowId: number,
    profile: Profile,
    target: { request: object; reference: string },
    facts: ReadFacts,
    requestedAt: Date,
    respondedAt: Date,
  ): Partial<StatusReadOutcome> {
    const { db, repos } = this.deps;
    return db.transaction((): Partial<StatusReadOutcome> => {
      recordRead(repos, { profileId: profile.id, kind: subject, reference: target.reference, rowId, requestBody: target.request, requestedAt, respondedAt }, facts);
      const store = subject === 'payin' ? repos.payins : repos.payouts;
      const before = store.byId(rowId) as TransactionRecord;
      const statusCode = facts.result === 'ok' ? facts.statusCode : null;
      if (facts.result !== 'ok' || !facts.found) {
        const contradicted = facts.result === 'not_found' && before.claimState === 'unverified';
        if (contradicted) store.contradictClaim(rowId, `notified status ${before.lastNotifiedStatus} for a ${subject} the gateway does not know`);
        const ids = contradicted ? this.markContradicted(subject, rowId, null) : [];
        return { result: facts.result, statusCode: null, record: store.byId(rowId), claim: contradicted ? 'contradicted' : 'none', contradictedNotifications: ids, detail: facts.error };
      }
      const body = facts.found as Loose;
      if (subject === 'payin') repos.payins.applyCreateAnswer(rowId, { payinId: text(body.payin_id), redirectUrl: text(body.redirect_url), createdAt: text(body.created_at) });
      else repos.payouts.applyCreateAnswer(rowId, { payoutId: text(body.payout_id), createdAt: text(body.created_at) });
      const money = moneyContradictions(before, body.amount, body.currency);
      if (money) store.noteConflict(rowId, `status read: ${money}`, 'facts');
      if (statusCode === null) {
        return { result: 'error', statusCode: null, record: store.byId(rowId), detail: 'the status read answered without a status_code' };
      }
      const applied = store.applyStatus(rowId, { statusCode, reasonCode: text(body.reason_code) ?? null, source: 'status_read' });
      const ids = applied.claim === 'contradicted' ? this.markContradicted(subject, rowId, String(statusCode)) : [];
      return {
        result: 'ok',
        statusCode: applied.record.lastVerifiedStatus,
        changed: applied.outcome === 'advanced',
        claim: applied.claim,
        record: applied.record,
        contradictedNotifications: ids,
        detail: money,
      };
    })();
  }

  /**
   * Re-marks as 'mismatch' the applied notifications of this transaction whose claim the gateway
   * contradicts (gatewayCode null: it does not know the transaction; with `includeAhead`, claims it
   * never caught up with). Returns their ids.
   */
  markContradicted(subject: TransactionKind, rowId: number, gatewayCode: string | null, includeAhead = false): number[] {
    const { notifications } = this.deps.repos;
    const event = subject === 'payin' ? 'v2_payin_notification' : 'v2_payout_notification';
    const linked = subject === 'payin' ? notifications.forPayin(rowId) : notifications.forPayout(rowId);
    const ids: number[] = [];
    for (const n of linked) {
      if (n.outcome !== 'applied' || n.event !== event || n.statusCode === null) continue;
      const verdict = gatewayCode === null ? 'contradicted' : resolveClaim(subject, statusFacts(subject, n.statusCode), statusFacts(subject, gatewayCode));
      if (verdict === 'contradicted' || (includeAhead && verdict === 'ahead')) {
        const says = gatewayCode === null ? 'does not know this transaction' : `says status ${gatewayCode}`;
        notifications.markOutcome(n.id, 'mismatch', { detail: `claimed status ${n.statusCode}; the gateway's status read ${says}` });
        ids.push(n.id);
      }
    }
    return ids;
  }
}
