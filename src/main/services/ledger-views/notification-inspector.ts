// The webhook inspector: every received notification with what became of it, its body and
// headers, and replay, which applies a stored notification again. An orphan or a pending one is
// retried as itself (its transaction may be known by now); any other is stored again as a copy
// (marked with an x-paydesk-replay-of header) and applied like a new delivery, so the ledger shows
// exactly what a real repeat would do: a duplicate changes nothing.
import type { NotificationView } from '../../../shared/contract';
import { describePayinStatus, describePayoutStatus } from '../../../shared/spec/codes';
import type { Ledger } from '../../ledger/connection';
import type { Repositories } from '../../ledger/repositories/index';
import type { NotificationOutcome, StoredNotification } from '../../ledger/repositories/notifications';
import { isoTime, type Clock } from '../../ledger/support';
import { ServiceError } from '../errors';
import type { AppliedNotification, NotificationApplier } from '../notification-applier';
import { bodyText, headerPairs } from './raw';

export interface NotificationListInput {
  profileId?: string | undefined;
  outcomes?: NotificationOutcome[] | undefined;
  events?: string[] | undefined;
  payinRowId?: number | undefined;
  payoutRowId?: number | undefined;
  beforeId?: number | null | undefined;
  limit?: number | undefined;
}

export function notificationView(n: StoredNotification): NotificationView {
  const body = bodyText(n.body);
  const statusKnown =
    n.statusCode === null ? false : n.event === 'v2_payout_notification' ? describePayoutStatus(n.statusCode).known : describePayinStatus(n.statusCode).known;
  return {
    id: n.id,
    profileId: n.profileId,
    receivedAt: n.receivedAt,
    sourceAddress: n.sourceAddress,
    event: n.event,
    transactionRef: n.transactionRef,
    requestRef: n.requestRef,
    statusCode: n.statusCode,
    statusKnown,
    outcome: n.outcome,
    detail: n.detail,
    payinRowId: n.payinRowId,
    payoutRowId: n.payoutRowId,
    tokenRowId: n.tokenRowId,
    processedAt: n.processedAt,
    answerStatus: n.answerStatus,
    bodySize: n.bodySize,
    bodyTruncated: n.bodyTruncated,
    body: body.text,
    bodyRedacted: body.redacted,
    headers: headerPairs(n.rawHeaders),
  };
}

export class NotificationInspector {
  constructor(
    private readonly deps: {
      db: Ledger;
      repos: Repositories;
      applier: Pick<NotificationApplier, 'apply' | 'retry'>;
      now: Clock;
    },
  ) {}

  list(input: NotificationListInput): { items: NotificationView[]; nextBeforeId: number | null } {
    const limit = input.limit ?? 50;
    const { db } = this.deps;
    const terms: string[] = [];
    const params: unknown[] = [];
    const oneOf = (column: string, values: readonly unknown[] | undefined) => {
      if (values && values.length > 0) {
        terms.push(`${column} IN (${values.map(() => '?').join(', ')})`);
        params.push(...values);
      }
    };
    if (input.profileId !== undefined) oneOf('profile_id', [input.profileId]);
    oneOf('outcome', input.outcomes);
    oneOf('event', input.events);
    if (input.payinRowId !== undefined) oneOf('payin_row_id', [input.payinRowId]);
    if (input.payoutRowId !== undefined) oneOf('payout_row_id', [input.payoutRowId]);
    if (input.beforeId !== undefined && input.beforeId !== null) {
      terms.push('id < ?');
      params.push(input.beforeId);
    }
    const where = terms.length > 0 ? `WHERE ${terms.join(' AND ')}` : '';
    const ids = (db.prepare(`SELECT id FROM notifications ${where} ORDER BY id DESC LIMIT ?`).all(...params, limit + 1) as { id: number }[]).map((r) => r.id);
    const items = ids.slice(0, limit).flatMap((id) => {
      const n = this.deps.repos.notifications.byId(id);
      return n ? [notificationView(n)] : [];
    });
    return { items, nextBeforeId: ids.length > limit ? (items.at(-1)?.id ?? null) : null };
  }

  view(id: number): NotificationView {
    const n = this.deps.repos.notifications.byId(id);
    if (!n) throw new ServiceError('not_found', `No notification with id ${id}.`);
    return notificationView(n);
  }

  replay(id: number): { notification: NotificationView; replayOf: number; needsVerification: boolean; result: AppliedNotification | undefined } {
    const { repos, applier, now } = this.deps;
    const original = repos.notifications.byId(id);
    if (!original) throw new ServiceError('not_found', `No notification with id ${id}.`);
    let appliedId = id;
    let result: AppliedNotification | undefined;
    if (original.outcome === 'orphan' || original.outcome === 'pending') {
      result = applier.retry(id);
    } else {
      appliedId = repos.notifications.insert({
        profileId: original.profileId,
        receivedAt: isoTime(now()),
        sourceAddress: `replay of notification ${id}`,
        rawHeaders: [...original.rawHeaders, 'x-paydesk-replay-of', String(id)],
        body: original.body,
        bodySize: original.bodySize,
        bodyTruncated: original.bodyTruncated,
        answerStatus: original.answerStatus,
        event: original.event,
        transactionRef: original.transactionRef,
        requestRef: original.requestRef,
        statusCode: original.statusCode,
        dedupeKey: original.dedupeKey,
        outcome: original.outcome === 'malformed' ? 'malformed' : 'pending',
        detail: original.outcome === 'malformed' ? original.detail : null,
      });
      if (original.outcome !== 'malformed') result = applier.apply(appliedId);
    }
    repos.audit.append({ actor: 'user', action: 'notification.replay', profileId: original.profileId, subject: original.transactionRef ?? original.requestRef, details: { notificationId: id, appliedAs: appliedId, outcome: result?.outcome ?? null } });
    return { notification: this.view(appliedId), replayOf: id, needsVerification: result?.needsVerification ?? false, result };
  }
}
