// The ledger as the renderer reads it: filtered keyset pages of pay-ins and payouts, global search
// by any reference, the timeline of one transaction (every request, answer, notification, status
// read and audit entry, oldest first, raw text included) and how many rows carry each code.
import type { CodeUsage, OrphanMatch, PayinView, PayoutView, SearchMatch, TimelineEntry, TransactionCountInput, TransactionListInput } from '../../../shared/contract';
import {
  PAYIN_STATUS_CATALOGUE,
  PAYOUT_STATUS_CATALOGUE,
  REASON_CATALOGUE,
  describePayinStatus,
  describePayoutStatus,
  describeReason,
} from '../../../shared/spec/codes';
import type { Ledger } from '../../ledger/connection';
import type { Repositories } from '../../ledger/repositories/index';
import type { PayinRecord } from '../../ledger/repositories/payins';
import type { PayoutRecord } from '../../ledger/repositories/payouts';
import type { TransactionFilter, TransactionRecord } from '../../ledger/repositories/transactions';
import type { StatusCategory, TransactionKind } from '../../ledger/status';
import { ServiceError } from '../errors';
import { payinView, payinViews, payoutView, payoutViews } from '../payments/views';
import { bodyText, headerPairs, safeText } from './raw';

export interface KeysetPage<T> {
  items: T[];
  nextCursor: string | null;
}

const PAYIN_ATTEMPT_KINDS = new Set(['payin', 'tokenization', 'token_charge']);

/** A date alone means its start (UTC). */
const toInstant = (value: string | undefined) => (value === undefined ? undefined : /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00.000Z` : value);

/** The contract's list filters as the repositories' filter (also used by the CSV export). */
export function toFilter(input: Omit<TransactionListInput, 'cursor' | 'limit' | 'sort'>): TransactionFilter {
  return {
    profileId: input.profileId,
    statusCodes: input.statusCodes,
    reasonCodes: input.reasonCodes,
    categories: input.categories as StatusCategory[] | undefined,
    methods: input.methods,
    currencies: input.currencies,
    createdFrom: toInstant(input.createdFrom),
    createdTo: toInstant(input.createdTo),
    mismatch: input.hasMismatch,
    final: input.final,
    search: input.search,
  };
}

/** Turns a repository's RangeError (bad cursor, bad date) into an answer naming the field. */
export function guarded<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof RangeError) {
      const field = /cursor/.test(error.message) ? 'cursor' : /date/.test(error.message) ? 'createdFrom' : 'limit';
      throw new ServiceError('invalid_input', error.message, { [field]: error.message });
    }
    throw error;
  }
}

export class LedgerViews {
  constructor(
    private readonly db: Ledger,
    private readonly repos: Repositories,
  ) {}

  /** One keyset page, never its total: on a million rows the count costs more than the page (countPayins). */
  listPayins(input: TransactionListInput): KeysetPage<PayinView> {
    return guarded(() => {
      const page = this.repos.payins.page(toFilter(input), { cursor: input.cursor ?? null, limit: input.limit, order: input.sort });
      return { items: payinViews(page.items, this.repos.attempts), nextCursor: page.nextCursor };
    });
  }

  /** How many pay-ins match the filters: a scan of an index, O(rows matched). */
  countPayins(input: TransactionCountInput): number {
    return guarded(() => this.repos.payins.count(toFilter(input)));
  }

  /** One keyset page, never its total (countPayouts), as for pay-ins. */
  listPayouts(input: TransactionListInput): KeysetPage<PayoutView> {
    return guarded(() => {
      const page = this.repos.payouts.page(toFilter(input), { cursor: input.cursor ?? null, limit: input.limit, order: input.sort });
      return { items: payoutViews(page.items, this.repos.attempts), nextCursor: page.nextCursor };
    });
  }

  /** How many payouts match the filters: a scan of an index, O(rows matched). */
  countPayouts(input: TransactionCountInput): number {
    return guarded(() => this.repos.payouts.count(toFilter(input)));
  }

  /** Exact match on request_id, payin_id, payout_id, merchantReference or e-mail (any case), in every profile, newest first. */
  lookup(query: string): SearchMatch[] {
    const term = query.trim();
    const base = (r: TransactionRecord) => ({
      id: r.id,
      profileId: r.profileId,
      email: r.email,
      method: r.method,
      amount: r.amount,
      currency: r.currency,
      statusCode: r.statusCode,
      verification: r.verification,
      createdAt: r.createdAt,
    });
    const payins = this.repos.payins.search(term, 50).map((r): SearchMatch => ({
      ...base(r),
      subject: 'payin',
      matchedOn: r.requestId === term ? 'request_id' : r.payinId === term ? 'payin_id' : 'email',
      reference: r.requestId,
      gatewayId: r.payinId,
    }));
    const payouts = this.repos.payouts.search(term, 50).map((r): SearchMatch => ({
      ...base(r),
      subject: 'payout',
      matchedOn: r.merchantReference === term ? 'merchantReference' : r.payoutId === term ? 'payout_id' : 'email',
      reference: r.merchantReference,
      gatewayId: r.payoutId,
    }));
    return [...payins, ...payouts].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id));
  }

  /** Exact match on the gateway id or merchant reference of notifications kept as orphans, in every profile, newest first. */
  lookupOrphans(query: string): OrphanMatch[] {
    const term = query.trim();
    return this.repos.notifications.orphansByReference(term).map((n) => {
      const payout = n.event === 'v2_payout_notification';
      const byGatewayId = n.transactionRef === term;
      return {
        id: n.id,
        profileId: n.profileId,
        matchedOn: payout ? (byGatewayId ? 'payout_id' : 'merchantReference') : byGatewayId ? 'payin_id' : 'request_id',
        event: n.event,
        transactionRef: n.transactionRef,
        requestRef: n.requestRef,
        statusCode: n.statusCode,
        receivedAt: n.receivedAt,
      };
    });
  }

  payinTimeline(id: number): { payin: PayinView; entries: TimelineEntry[] } {
    const record = this.repos.payins.byId(id);
    if (!record) throw new ServiceError('not_found', `No pay-in with id ${id} in the ledger.`);
    return { payin: payinView(record, this.repos.attempts), entries: this.timeline('payin', record) };
  }

  payoutTimeline(id: number): { payout: PayoutView; entries: TimelineEntry[] } {
    const record = this.repos.payouts.byId(id);
    if (!record) throw new ServiceError('not_found', `No payout with id ${id} in the ledger.`);
    return { payout: payoutView(record, this.repos.attempts), entries: this.timeline('payout', record) };
  }

  /** Every request, answer, notification, status read and audit entry of one transaction, oldest first. */
  timeline(subject: TransactionKind, record: PayinRecord | PayoutRecord): TimelineEntry[] {
    const { repos } = this;
    const reference = 'requestId' in record ? record.requestId : record.merchantReference;
    const gatewayId = 'requestId' in record ? record.payinId : record.payoutId;
    const entries: TimelineEntry[] = [];
    const none = { statusCode: null, outcome: null, detail: null, request: null, response: null, headers: null };

    const attempts = repos.attempts.forReference(record.profileId, reference).filter((a) => (subject === 'payin' ? PAYIN_ATTEMPT_KINDS.has(a.kind) : a.kind === 'payout'));
    for (const a of attempts) {
      entries.push({ ...none, key: `attempt:${a.id}:request`, at: a.lastSentAt ?? a.createdAt, kind: 'request', title: `Create request (${a.kind}), Idempotency-Key ${a.idempotencyKey}`, outcome: a.state, detail: a.tryCount > 1 ? `sent ${a.tryCount} times with the same key` : null, request: safeText(a.requestBody) });
      if (a.responseBody !== null || a.httpStatus !== null || a.error !== null) {
        entries.push({
          ...none,
          key: `attempt:${a.id}:response`,
          at: a.completedAt ?? a.updatedAt,
          kind: 'response',
          title: a.httpStatus === null ? 'No answer' : `Answer HTTP ${a.httpStatus}${a.responseSource === 'status_read' ? ' (settled by a status read)' : ''}`,
          statusCode: statusOf(a.responseBody),
          outcome: a.state,
          detail: a.error,
          response: safeText(a.responseBody),
        });
      }
    }
    const notifications = subject === 'payin' ? repos.notifications.forPayin(record.id) : repos.notifications.forPayout(record.id);
    for (const n of notifications) {
      entries.push({ ...none, key: `notification:${n.id}`, at: n.receivedAt, kind: 'notification', title: `Notification ${n.event ?? '(unknown event)'}`, statusCode: n.statusCode, outcome: n.outcome, detail: n.detail, request: bodyText(n.body).text, headers: headerPairs(n.rawHeaders) });
    }
    const reads = subject === 'payin' ? repos.statusReads.forPayin(record.id) : repos.statusReads.forPayout(record.id);
    for (const r of reads) {
      entries.push({ ...none, key: `status-read:${r.id}`, at: r.requestedAt, kind: 'status_read', title: `Status read${r.httpStatus === null ? '' : ` HTTP ${r.httpStatus}`}`, statusCode: r.statusCode, outcome: r.result, detail: r.error, request: safeText(r.requestBody), response: safeText(r.responseBody) });
    }
    for (const entry of this.auditFor(record.profileId, [reference, gatewayId])) {
      entries.push({ ...none, key: `audit:${entry.seq}`, at: entry.at, kind: 'audit', title: `${entry.action} by ${entry.actor}`, outcome: entry.action, request: entry.details });
    }
    const order = { request: 0, response: 1, notification: 2, status_read: 3, audit: 4 } as const;
    return entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : order[a.kind] - order[b.kind]));
  }

  /** Audit entries about this transaction (by reference or gateway id), oldest first. */
  auditFor(profileId: string, subjects: (string | null)[]) {
    const wanted = subjects.filter((s): s is string => s !== null);
    if (wanted.length === 0) return [];
    const rows = this.db
      .prepare(
        `SELECT seq, at, actor, action, profile_id AS profileId, subject, details FROM audit_log
         WHERE subject IN (${wanted.map(() => '?').join(', ')}) AND (profile_id = ? OR profile_id IS NULL) ORDER BY seq`,
      )
      .all(...wanted, profileId) as { seq: number; at: string; actor: string; action: string; profileId: string | null; subject: string; details: string }[];
    return rows;
  }

  /** Every catalogue code with how many ledger rows and notifications carry it, and the unknown codes seen. */
  codesUsage(): { codes: CodeUsage[]; unknown: CodeUsage[] } {
    const counts = (sql: string) => new Map((this.db.prepare(sql).all() as { code: string; n: number }[]).map((r) => [r.code, r.n]));
    const payinRows = counts('SELECT status_code AS code, count(*) AS n FROM payins WHERE status_code IS NOT NULL GROUP BY status_code');
    const payoutRows = counts('SELECT status_code AS code, count(*) AS n FROM payouts WHERE status_code IS NOT NULL GROUP BY status_code');
    const reasonRows = counts(
      `SELECT code, sum(n) AS n FROM (
         SELECT reason_code AS code, count(*) AS n FROM payins WHERE reason_code IS NOT NULL GROUP BY reason_code
         UNION ALL SELECT reason_code AS code, count(*) AS n FROM payouts WHERE reason_code IS NOT NULL GROUP BY reason_code)
       GROUP BY code`,
    );
    const notified = this.db
      .prepare("SELECT event, status_code AS code, count(*) AS n FROM notifications WHERE status_code IS NOT NULL AND outcome <> 'malformed' GROUP BY event, status_code")
      .all() as { event: string; code: string; n: number }[];
    const payinNotified = new Map<string, number>();
    const payoutNotified = new Map<string, number>();
    for (const r of notified) {
      if (r.event === 'v2_tokenization_notification') continue; // its status is the vaulting's, not a pay-in's
      const target = r.event === 'v2_payout_notification' ? payoutNotified : payinNotified;
      target.set(r.code, (target.get(r.code) ?? 0) + r.n);
    }
    const codes: CodeUsage[] = [
      ...PAYIN_STATUS_CATALOGUE.map((e) => ({ kind: 'payin_status' as const, code: String(e.code), known: true, rows: payinRows.get(String(e.code)) ?? 0, notifications: payinNotified.get(String(e.code)) ?? 0 })),
      ...PAYOUT_STATUS_CATALOGUE.map((e) => ({ kind: 'payout_status' as const, code: e.code, known: true, rows: payoutRows.get(e.code) ?? 0, notifications: payoutNotified.get(e.code) ?? 0 })),
      ...REASON_CATALOGUE.map((e) => ({ kind: 'reason' as const, code: e.code, known: true, rows: reasonRows.get(e.code) ?? 0, notifications: 0 })),
    ];
    const unknown: CodeUsage[] = [];
    const addUnknown = (kind: CodeUsage['kind'], rows: Map<string, number>, notifications: Map<string, number>, known: (code: string) => boolean) => {
      for (const code of new Set([...rows.keys(), ...notifications.keys()])) {
        if (!known(code)) unknown.push({ kind, code, known: false, rows: rows.get(code) ?? 0, notifications: notifications.get(code) ?? 0 });
      }
    };
    addUnknown('payin_status', payinRows, payinNotified, (c) => describePayinStatus(c).known);
    addUnknown('payout_status', payoutRows, payoutNotified, (c) => describePayoutStatus(c).known);
    addUnknown('reason', reasonRows, new Map(), (c) => describeReason(c).known);
    return { codes, unknown };
  }
}

/** The status_code of a stored JSON answer, if it has one. */
function statusOf(text: string | null): string | null {
  if (text === null) return null;
  const match = /"status_code"\s*:\s*"?([A-Za-z0-9]+)"?/.exec(text);
  return match?.[1] ?? null;
}
