// The webhook inspector: every received notification with what became of it (summaries: lists
// and pushes never carry a body), one with its body and headers, and replay, which applies a stored notification again. An orphan or a pending one is
// retried as itself (its transaction may be known by now); any other is stored again as a copy
// (marked with an x-paydesk-replay-of header) and applied like a new delivery, so the ledger shows
// exactly what a real repeat would do: a duplicate changes nothing.
import type { NotificationSummary, NotificationView } from '../../../shared/contract';
import { eventStatusKnown } from '../../../shared/spec/events';
import type { Repositories } from '../../ledger/repositories/index';
import type { NotificationFilter, NotificationSummaryRecord, StoredNotification } from '../../ledger/repositories/notifications';
import { isoTime, type Clock } from '../../ledger/support';
import { ServiceError } from '../errors';
import { numberCursor, numberedPage } from '../numbered-pages';
import type { AppliedNotification, NotificationApplier } from '../notification-applier';
import { bodyText, headerPairs } from './raw';

/** The facts of a stored notification, as lists and pushes carry them (no body, no headers). */
export function notificationSummary(n: NotificationSummaryRecord): NotificationSummary {
  return {
    id: n.id,
    profileId: n.profileId,
    receivedAt: n.receivedAt,
    sourceAddress: n.sourceAddress,
    event: n.event,
    transactionRef: n.transactionRef,
    requestRef: n.requestRef,
    statusCode: n.statusCode,
    statusKnown: eventStatusKnown(n.event, n.statusCode),
    outcome: n.outcome,
    detail: n.detail,
    payinRowId: n.payinRowId,
    payoutRowId: n.payoutRowId,
    tokenRowId: n.tokenRowId,
    processedAt: n.processedAt,
    answerStatus: n.answerStatus,
    bodySize: n.bodySize,
    bodyTruncated: n.bodyTruncated,
    rawPrunedAt: n.rawPrunedAt,
  };
}

/** A notification with its body and headers, made fit to leave main (the inspector's detail). */
export function notificationView(n: StoredNotification): NotificationView {
  const body = bodyText(n.body);
  return { ...notificationSummary(n), body: body.text, bodyRedacted: body.redacted, headers: headerPairs(n.rawHeaders) };
}

export class NotificationInspector {
  constructor(
    private readonly deps: {
      repos: Repositories;
      applier: Pick<NotificationApplier, 'apply' | 'retry'>;
      now: Clock;
      /** Announces a stored notification (the webhook inspector lists them live). */
      publish: (id: number) => void;
    },
  ) {}

  async list({ beforeId, limit, ...filter }: NotificationFilter & { beforeId?: number | null | undefined; limit?: number | undefined }): Promise<{ items: NotificationSummary[]; nextBeforeId: number | null }> {
    const page = numberedPage(await this.deps.repos.notifications.summaryPage(filter, { cursor: numberCursor(beforeId), limit: limit ?? 50 }));
    return { items: page.items.map(notificationSummary), nextBeforeId: page.next };
  }

  /** How many notifications the list holds under these filters, apart from its pages (as for pay-ins and payouts). */
  async count(filter: NotificationFilter): Promise<{ total: number }> {
    return { total: await this.deps.repos.notifications.count(filter) };
  }

  /** The summary of one notification, read without its body. */
  async summary(id: number): Promise<NotificationSummary> {
    const n = await this.deps.repos.notifications.summaryById(id);
    if (!n) throw new ServiceError('not_found', `No notification with id ${id}.`);
    return notificationSummary(n);
  }

  async view(id: number): Promise<NotificationView> {
    const n = await this.deps.repos.notifications.byId(id);
    if (!n) throw new ServiceError('not_found', `No notification with id ${id}.`);
    return notificationView(n);
  }

  async replay(id: number): Promise<{ notification: NotificationSummary; replayOf: number; needsVerification: boolean }> {
    const { repos, applier, now, publish } = this.deps;
    const original = await repos.notifications.byId(id);
    if (!original) throw new ServiceError('not_found', `No notification with id ${id}.`);
    let appliedId = id;
    let result: AppliedNotification | undefined;
    if (original.outcome === 'orphan' || original.outcome === 'pending') {
      result = await applier.retry(id);
    } else {
      appliedId = await repos.notifications.insert({
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
      if (original.outcome !== 'malformed') result = await applier.apply(appliedId);
    }
    await repos.audit.append({ actor: 'user', action: 'notification.replay', profileId: original.profileId, subject: original.transactionRef ?? original.requestRef, details: { notificationId: id, appliedAs: appliedId, outcome: result?.outcome ?? null } });
    // A malformed copy is never applied, so the applier does not announce it.
    if (original.outcome === 'malformed') publish(appliedId);
    return { notification: await this.summary(appliedId), replayOf: id, needsVerification: result?.needsVerification ?? false };
  }
}
