// The live-update pushes of the payments domain: 'payins:payin-changed', 'payouts:payout-changed',
// 'tokens:token-changed'. One helper for every publisher (the payment services after a create or
// a status read, the notification apply step after a notification), so the payload is always the
// same contract view whoever changed the row.
import type { Repositories } from '../../ledger/repositories/index';
import type { AppliedNotification } from '../notification-applier';
import type { EventBus } from '../event-bus';
import { payinViewOf, payoutViewOf, tokenView } from './views';

export type TransactionChange = { subject: 'payin' | 'payout' | 'token'; rowId: number };

type PushRepos = Pick<Repositories, 'payins' | 'payouts' | 'tokens'>;

/** Publishes the current view of one changed row (read in one query); a row that is gone publishes nothing. */
export async function publishTransactionChanged(events: EventBus, repos: PushRepos, change: TransactionChange): Promise<void> {
  if (change.subject === 'payin') {
    const found = await repos.payins.withViewFacts(change.rowId);
    if (found) events.publish('payins:payin-changed', payinViewOf(found.record, found.attempt, found.card));
  } else if (change.subject === 'payout') {
    const found = await repos.payouts.withViewFacts(change.rowId);
    if (found) events.publish('payouts:payout-changed', payoutViewOf(found.record, found.attempt, found.card));
  } else {
    const token = await repos.tokens.byId(change.rowId);
    if (token) events.publish('tokens:token-changed', tokenView(token));
  }
}

/** The changes a notification apply result stands for (for NotificationApplier's onApplied). */
export function changesFromNotification(result: AppliedNotification): TransactionChange[] {
  const changes: TransactionChange[] = [];
  if (result.subject !== null && result.rowId !== null) changes.push({ subject: result.subject, rowId: result.rowId });
  if (result.tokenRowId !== null) changes.push({ subject: 'token', rowId: result.tokenRowId });
  return changes;
}
