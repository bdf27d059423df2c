// The ledger as the renderer reads it: filtered keyset pages of pay-ins and payouts, global search
// by any reference, the timeline of one transaction (every request, answer, notification, status
// read and audit entry, oldest first, raw text included) and how many rows carry each code.
import type {
  CodeUsage,
  ContradictingClaim,
  OrphanMatch,
  PayinView,
  PayoutView,
  SearchMatch,
  TimelineEntry,
  TransactionCountInput,
  TransactionListInput,
} from '../../../shared/contract';
import {
  PAYIN_STATUS_CATALOGUE,
  PAYOUT_STATUS_CATALOGUE,
  REASON_CATALOGUE,
  describePayinStatus,
  describePayoutStatus,
  describeReason,
} from '../../../shared/spec/codes';
import { eventSpec, statusSubjectOf } from '../../../shared/spec/events';
import type { CardFacts } from '../../ledger/repositories/cards';
import type { Repositories } from '../../ledger/repositories/index';
import type { Page } from '../../ledger/repositories/page';
import type { PayinRecord } from '../../ledger/repositories/payins';
import type { PayoutRecord } from '../../ledger/repositories/payouts';
import type { TransactionRecord } from '../../ledger/repositories/transactions';
import { KIND_OF_ATTEMPT, TRANSACTION_KINDS, transactionOf, type TransactionKind } from '../../transaction-kinds';
import type { Clock } from '../../ledger/support';
import { ServiceError } from '../errors';
import type { ReferenceReadRefusal, ReferenceReads } from '../verification/reference-reads';
import { cardView, payinView, payinViews, payoutView, payoutViews } from '../payments/views';
import { guarded, toFilter } from './list-filter';
import { bodyText, headerPairs, safeText } from './raw';


export class LedgerViews {
  constructor(
    private readonly repos: Repositories,
    private readonly now: Clock,
    private readonly referenceReads?: Pick<ReferenceReads, 'refusalFor'>,
  ) {}

  /** One keyset page, never its total: on a million rows the count costs more than the page (countPayins). */
  listPayins(input: TransactionListInput): Promise<Page<PayinView>> {
    return guarded(async () => {
      const page = await this.repos.payins.page(toFilter(input), { cursor: input.cursor ?? null, limit: input.limit, order: input.sort });
      return { items: await payinViews(page.items, this.repos), nextCursor: page.nextCursor };
    });
  }

  /** How many pay-ins match the filters: a scan of an index, O(rows matched). */
  countPayins(input: TransactionCountInput): Promise<{ total: number }> {
    return guarded(async () => ({ total: await this.repos.payins.count(toFilter(input)) }));
  }

  /** One keyset page, never its total (countPayouts), as for pay-ins. */
  listPayouts(input: TransactionListInput): Promise<Page<PayoutView>> {
    return guarded(async () => {
      const page = await this.repos.payouts.page(toFilter(input), { cursor: input.cursor ?? null, limit: input.limit, order: input.sort });
      return { items: await payoutViews(page.items, this.repos), nextCursor: page.nextCursor };
    });
  }

  /** How many payouts match the filters: a scan of an index, O(rows matched). */
  countPayouts(input: TransactionCountInput): Promise<{ total: number }> {
    return guarded(async () => ({ total: await this.repos.payouts.count(toFilter(input)) }));
  }

  /** Global search: the transactions a reference or e-mail names, and the orphan notifications naming it. */
  async search(query: string): Promise<{ matches: SearchMatch[]; orphans: OrphanMatch[] }> {
    return { matches: await this.lookup(query), orphans: await this.lookupOrphans(query) };
  }

  /** Exact match on request_id, payin_id, payout_id, merchantReference or e-mail (any case), in every profile, newest first. */
  private async lookup(query: string): Promise<SearchMatch[]> {
    const term = query.trim();
    const payinRows = await this.repos.payins.search(term, 50);
    const payoutRows = await this.repos.payouts.search(term, 50);
    const payinCards = await this.repos.cards.of('payin', payinRows.map((r) => r.id));
    const payoutCards = await this.repos.cards.of('payout', payoutRows.map((r) => r.id));
    const base = (r: TransactionRecord, card: CardFacts | undefined) => ({
      id: r.id,
      profileId: r.profileId,
      email: r.email,
      method: r.method,
      amount: r.amount,
      currency: r.currency,
      statusCode: r.statusCode,
      verification: r.verification,
      card: cardView(card ?? null),
      createdAt: r.createdAt,
    });
    const payins = payinRows.map((r): SearchMatch => ({
      ...base(r, payinCards.get(r.id)),
      subject: 'payin',
      matchedOn: r.requestId === term ? 'request_id' : r.payinId === term ? 'payin_id' : 'email',
      reference: r.requestId,
      gatewayId: r.payinId,
    }));
    const payouts = payoutRows.map((r): SearchMatch => ({
      ...base(r, payoutCards.get(r.id)),
      subject: 'payout',
      matchedOn: r.merchantReference === term ? 'merchantReference' : r.payoutId === term ? 'payout_id' : 'email',
      reference: r.merchantReference,
      gatewayId: r.payoutId,
    }));
    return [...payins, ...payouts].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id));
  }

  /** Exact match on the gateway id or merchant reference of notifications kept as orphans, in every profile, newest first. */
  async lookupOrphans(query: string): Promise<OrphanMatch[]> {
    const term = query.trim();
    return (await this.repos.notifications.orphansByReference(term)).flatMap((n) => {
      // The listener keeps a notification of an event outside the spec as malformed, never as an
      // orphan; were one found, it names no reference field to say what matched, so it is left out.
      const references = eventSpec(n.event)?.references;
      if (references === undefined) return [];
      return {
        id: n.id,
        profileId: n.profileId,
        matchedOn: n.transactionRef === term ? references.gatewayId : references.merchantReference,
        event: n.event,
        transactionRef: n.transactionRef,
        requestRef: n.requestRef,
        statusCode: n.statusCode,
        receivedAt: n.receivedAt,
      };
    });
  }

  async payinTimeline(id: number): Promise<{ payin: PayinView; entries: TimelineEntry[]; contradictions: ContradictingClaim[] }> {
    const record = await this.repos.payins.byId(id);
    if (!record) throw new ServiceError('not_found', `No pay-in with id ${id} in the ledger.`);
    return { payin: await payinView(record, this.repos), ...(await this.timeline('payin', record)) };
  }

  async payoutTimeline(id: number): Promise<{ payout: PayoutView; entries: TimelineEntry[]; contradictions: ContradictingClaim[]; referenceReadRefused: ReferenceReadRefusal | null }> {
    const record = await this.repos.payouts.byId(id);
    if (!record) throw new ServiceError('not_found', `No payout with id ${id} in the ledger.`);
    // Read by merchantReference only while it has no payout_id: then whether its gateway can.
    const referenceReadRefused = record.payoutId === null ? ((await this.referenceReads?.refusalFor(record.profileId)) ?? null) : null;
    return { payout: await payoutView(record, this.repos), ...(await this.timeline('payout', record)), referenceReadRefused };
  }

  /**
   * Every request, answer, notification, status read and audit entry of one transaction, oldest
   * first; and the notifications whose claim was contradicted (outcome mismatch: the applier marks
   * one that contradicts a final result, a status read re-marks one whose claim it contradicts).
   */
  async timeline(subject: TransactionKind, record: PayinRecord | PayoutRecord): Promise<{ entries: TimelineEntry[]; contradictions: ContradictingClaim[] }> {
    const { repos } = this;
    const { reference, gatewayId } = transactionOf(record);
    const entries: TimelineEntry[] = [];
    const none = { event: null, statusCode: null, outcome: null, detail: null, request: null, response: null, headers: null };

    const attempts = (await repos.attempts.forReference(record.profileId, reference)).filter((a) => KIND_OF_ATTEMPT[a.kind] === subject);
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
    const notifications = await TRANSACTION_KINDS[subject].notifications(repos, record.id);
    const contradictions = notifications.filter((n) => n.outcome === 'mismatch').map((n) => ({ notificationId: n.id, statusCode: n.statusCode, receivedAt: n.receivedAt, detail: n.detail }));
    for (const n of notifications) {
      entries.push({ ...none, key: `notification:${n.id}`, at: n.receivedAt, kind: 'notification', title: `Notification ${n.event ?? '(unknown event)'}`, event: n.event, statusCode: n.statusCode, outcome: n.outcome, detail: n.detail, request: bodyText(n.body).text, headers: headerPairs(n.rawHeaders) });
    }
    const reads = await TRANSACTION_KINDS[subject].statusReads(repos, record.id);
    for (const r of reads) {
      entries.push({ ...none, key: `status-read:${r.id}`, at: r.requestedAt, kind: 'status_read', title: `Status read${r.httpStatus === null ? '' : ` HTTP ${r.httpStatus}`}`, statusCode: r.statusCode, outcome: r.result, detail: r.error, request: safeText(r.requestBody), response: safeText(r.responseBody) });
    }
    for (const entry of await this.auditFor(record.profileId, [reference, gatewayId])) {
      entries.push({ ...none, key: `audit:${entry.seq}`, at: entry.at, kind: 'audit', title: `${entry.action} by ${entry.actor}`, outcome: entry.action, request: entry.details });
    }
    const order = { request: 0, response: 1, notification: 2, status_read: 3, audit: 4 } as const;
    return { entries: entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : order[a.kind] - order[b.kind])), contradictions };
  }

  /** Audit entries about this transaction (by reference or gateway id), oldest first. */
  auditFor(profileId: string, subjects: (string | null)[]) {
    return this.repos.audit.forSubjects(profileId, subjects.filter((s): s is string => s !== null));
  }

  /** Every catalogue code with how many ledger rows and notifications carry it, and the unknown codes seen. */
  async codesUsage(): Promise<{ codes: CodeUsage[]; unknown: CodeUsage[] }> {
    const { payinStatus: payinRows, payoutStatus: payoutRows, reasons: reasonRows, notified } = await this.repos.codeUsage.counts();
    const notifiedCodes: Record<TransactionKind, Map<string, number>> = { payin: new Map(), payout: new Map() };
    for (const r of notified) {
      const subject = statusSubjectOf(r.event); // a vaulting result's status is not a pay-in's; an unknown event's is nobody's
      if (subject === null) continue;
      const target = notifiedCodes[subject];
      target.set(r.code, (target.get(r.code) ?? 0) + r.n);
    }
    const { payin: payinNotified, payout: payoutNotified } = notifiedCodes;
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
