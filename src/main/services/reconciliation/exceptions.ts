// The reconciliation exception lists as the contract shows them: each row with what the list
// says of it (the ledger's ExceptionsRepository holds their queries), their totals, and every row
// of a list for a CSV export.
import type { ExceptionKind, ExceptionRow, ExceptionScope } from '../../../shared/contract';
import { isJsonObject, numberText, parseJson } from '../../../shared/json';
import { subjectOf } from '../../../shared/spec/events';
import type { AttemptException, ExceptionListQuery, ExceptionRecord, ExceptionsRepository, NotificationException, TransactionException } from '../../ledger/repositories/exceptions';
import { isoTime } from '../../ledger/support';
import { KIND_OF_ATTEMPT } from '../../transaction-kinds';
import { verificationState } from '../../ledger/verification-state';
import { ServiceError } from '../errors';
import { guarded } from '../ledger-views/list-filter';
import { counted } from '../../../shared/counted';
import { refusedReferenceReadText, type ReferenceReadRefusal, type ReferenceReads } from '../verification/reference-reads';

export const DEFAULT_PENDING_MINUTES = 60;
/** An attempt still "sending" or "prepared" this long after its last change was interrupted. */
const STALE_SEND_MS = 5 * 60_000;

const EXCEPTION_KINDS: ExceptionKind[] = ['pending_too_long', 'notified_not_verified', 'status_mismatch', 'amount_mismatch', 'orphans', 'duplicates', 'payouts_stuck', 'unknown_attempts'];

export interface ExceptionQuery extends ExceptionScope {
  kind: ExceptionKind;
  cursor?: string | null | undefined;
  limit?: number | undefined;
}

export class ExceptionLists {
  constructor(
    private readonly exceptions: ExceptionsRepository,
    private readonly now: () => Date,
    private readonly referenceReads?: Pick<ReferenceReads, 'refusalFor'>,
  ) {}

  /** One page, newest first; the list's total comes with its first page. */
  async page(query: ExceptionQuery): Promise<{ items: ExceptionRow[]; nextCursor: string | null; total: number | null }> {
    const list = this.listQuery(query.kind, query);
    const page = await guarded(() => this.exceptions.page(list, { cursor: query.cursor, limit: query.limit ?? 50 }));
    const items = await this.withReferenceReadNotes(page.items.map((r) => toRow(query.kind, r)));
    return { items, nextCursor: page.nextCursor, total: query.cursor ? null : await this.exceptions.count(list) };
  }

  /** Every row of a list, for a CSV export, stopping at `max`. */
  async all(query: Omit<ExceptionQuery, 'cursor' | 'limit'>, max: number): Promise<{ items: ExceptionRow[]; truncated: boolean }> {
    const items: ExceptionRow[] = [];
    // One row more than `max` tells "exactly max" apart from "more"; stopping the stream ends its reads.
    for await (const record of this.exceptions.rows(this.listQuery(query.kind, query))) {
      if (items.length === max) return { items: await this.withReferenceReadNotes(items), truncated: true };
      items.push(toRow(query.kind, record));
    }
    return { items: await this.withReferenceReadNotes(items), truncated: false };
  }

  /**
   * An unknown payout attempt without a payout_id, whose gateway has said it cannot read payouts by
   * merchantReference, says so first (once, for the row; the gateway is not asked again): what
   * settles it is a resume under its key. One read per profile for the rows given.
   */
  private async withReferenceReadNotes(rows: ExceptionRow[]): Promise<ExceptionRow[]> {
    if (!this.referenceReads) return rows;
    const refusals = new Map<string, ReferenceReadRefusal | null>();
    for (const row of rows) {
      if (row.kind !== 'unknown_attempts' || row.subject !== 'payout' || row.gatewayId !== null || row.profileId === null) continue;
      if (!refusals.has(row.profileId)) refusals.set(row.profileId, await this.referenceReads.refusalFor(row.profileId));
      const refusal = refusals.get(row.profileId);
      if (refusal) row.detail = `${refusedReferenceReadText(refusal)} · ${row.detail ?? ''}`;
    }
    return rows;
  }

  async counts(scope: ExceptionScope): Promise<{ kind: ExceptionKind; count: number }[]> {
    // Read-only counts outside a transaction: run side by side (PostgreSQL has a pool to spread them over).
    return Promise.all(EXCEPTION_KINDS.map(async (kind) => ({ kind, count: await this.exceptions.count(this.listQuery(kind, scope)) })));
  }

  private listQuery(kind: ExceptionKind, { profileId, pendingOlderThanMinutes, from, to }: ExceptionScope): ExceptionListQuery {
    if (from !== undefined && to !== undefined && from > to) throw new ServiceError('invalid_input', 'The date range ends before it starts.', { to: 'Must be on or after the first day: swap the dates.' });
    const now = this.now().getTime();
    return {
      kind,
      profileId,
      from,
      to,
      pendingBefore: isoTime(new Date(now - (pendingOlderThanMinutes ?? DEFAULT_PENDING_MINUTES) * 60_000)),
      interruptedBefore: isoTime(new Date(now - STALE_SEND_MS)),
    };
  }
}

function toRow(kind: ExceptionKind, record: ExceptionRecord): ExceptionRow {
  switch (record.source) {
    case 'transaction':
      return transactionRow(kind, record);
    case 'notification':
      return notificationRow(kind, record);
    case 'attempt':
      return attemptRow(kind, record);
  }
}

type TransactionFacts = Pick<ExceptionRow, 'profileId' | 'reference' | 'gatewayId' | 'method' | 'amount' | 'currency' | 'statusCode'>;

/** What a row says of its transaction, as a transaction's or an attempt's record holds it. */
const transactionFacts = (r: TransactionFacts): TransactionFacts => ({ profileId: r.profileId, reference: r.reference, gatewayId: r.gatewayId, method: r.method, amount: r.amount, currency: r.currency, statusCode: r.statusCode });

function transactionRow(kind: ExceptionKind, r: TransactionException): ExceptionRow {
  return {
    key: `${r.subject}:${r.id}`,
    kind,
    subject: r.subject,
    rowId: r.id,
    ...transactionFacts(r),
    // The claim the row is flagged for: a contradicting notification's, never the agreeing one held before it.
    notifiedStatus: r.contradictingClaim ?? r.lastNotifiedStatus,
    verifiedStatus: r.lastVerifiedStatus,
    verification: verificationState({
      statusCode: r.statusCode,
      final: r.final,
      statusKnown: r.statusKnown,
      claimState: r.claimState,
      lastNotifiedStatus: r.lastNotifiedStatus,
      lastVerifiedStatus: r.lastVerifiedStatus,
      mismatch: r.mismatch,
    }),
    at: r.createdAt,
    notificationId: null,
    attemptId: null,
    detail: transactionDetail(kind, r),
  };
}

function transactionDetail(kind: ExceptionKind, r: TransactionException): string | null {
  switch (kind) {
    case 'status_mismatch':
      return r.statusConflict ?? r.conflict ?? (r.lastVerifiedStatus !== r.statusCode ? `the gateway now says ${r.lastVerifiedStatus}` : null);
    case 'amount_mismatch':
      return r.factsConflict;
    case 'notified_not_verified':
      return `notified ${r.lastNotifiedStatus}; the gateway last said ${r.lastVerifiedStatus ?? 'nothing yet'}`;
    case 'pending_too_long':
      return r.statusCode === null ? 'no answer from the gateway recorded' : `still ${r.statusCode}`;
    case 'payouts_stuck':
      return `still ${r.statusCode}`;
    default:
      return null;
  }
}

function notificationRow(kind: ExceptionKind, r: NotificationException): ExceptionRow {
  const claimed = r.amount === null ? claimedMoney(r.body) : null;
  return {
    key: `notification:${r.id}`,
    kind,
    subject: subjectOf(r.event),
    rowId: r.rowId,
    profileId: r.profileId,
    reference: r.requestRef,
    gatewayId: r.transactionRef,
    method: r.method ?? claimed?.method ?? null,
    amount: r.amount ?? claimed?.amount ?? null,
    currency: r.currency ?? claimed?.currency ?? null,
    statusCode: r.statusCode,
    notifiedStatus: r.statusCode,
    verifiedStatus: null,
    verification: null,
    at: r.receivedAt,
    notificationId: r.id,
    attemptId: null,
    detail: r.detail,
  };
}

function attemptRow(kind: ExceptionKind, r: AttemptException): ExceptionRow {
  return {
    key: `attempt:${r.id}`,
    kind,
    subject: KIND_OF_ATTEMPT[r.kind],
    rowId: r.rowId,
    ...transactionFacts(r),
    notifiedStatus: null,
    verifiedStatus: null,
    verification: null,
    at: r.createdAt,
    notificationId: null,
    attemptId: r.id,
    // What settles it first (the list is narrow), then why it is open.
    detail: `${r.settleNote ? `last automatic try: ${r.settleNote}` : howToSettle(r.kind, r.environment)} · ${r.state}${r.error ? `: ${r.error}` : ''} (sent ${counted(r.tryCount, 'time')})`,
  };
}

/** How an unknown attempt is settled, always under its own Idempotency-Key. */
function howToSettle(kind: string, environment: string | null): string {
  if (kind !== 'payout') return 'settle: a status read by request_id, then a resend under its key if the gateway does not know it';
  return environment === 'live'
    ? 'settle: resume it under its key after its review (a live payout is never resent in the background)'
    : 'settle: resume it under its key (the gateway replays its first answer if it had one)';
}

/** Method, amount and currency an orphan notification claims (exact decimal text). */
function claimedMoney(body: Buffer): { method: string | null; amount: string | null; currency: string | null } | null {
  try {
    const value = parseJson(body.toString('utf8'));
    if (!isJsonObject(value)) return null;
    const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
    return {
      method: text(value.payment_method) ?? text(value.method),
      amount: typeof value.amount === 'string' ? value.amount : (numberText(value.amount) ?? null),
      currency: text(value.currency),
    };
  } catch {
    return null;
  }
}
