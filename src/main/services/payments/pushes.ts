// The live-update pushes of the payments domain: 'payins:payin-changed', 'payouts:payout-changed',
// 'tokens:token-changed'. One helper for every publisher (the payment services after a create or
// a status read, the notification apply step after a notification), so the payload is always the
// same contract view whoever changed the row.
import type { PayinView, PayoutView, TokenView } from '../../../shared/contract';
import type { Repositories } from '../../ledger/repositories/index';
import type { EventBus } from '../event-bus';
import { payinViewOf, payoutViewOf, tokenView } from './views';

export type TransactionChange = { subject: 'payin' | 'payout' | 'token'; rowId: number };

/** One row's view, ready to publish on its channel. */
export type TransactionPush =
  | { channel: 'payins:payin-changed'; view: PayinView }
  | { channel: 'payouts:payout-changed'; view: PayoutView }
  | { channel: 'tokens:token-changed'; view: TokenView };

type PushRepos = Pick<Repositories, 'payins' | 'payouts' | 'tokens'>;
type PayoutFacts = NonNullable<Awaited<ReturnType<Repositories['payouts']['withViewFacts']>>>;

/** The push of a payout row read with its view facts (PayoutsRepository.withViewFacts). */
export function payoutPush(found: PayoutFacts): TransactionPush {
  return { channel: 'payouts:payout-changed', view: payoutViewOf(found.record, found.attempt, found.card) };
}

/** The current view of one changed row (read in one query); a row that is gone has none. */
export async function readPush(repos: PushRepos, change: TransactionChange): Promise<TransactionPush | undefined> {
  if (change.subject === 'payin') {
    const found = await repos.payins.withViewFacts(change.rowId);
    return found && { channel: 'payins:payin-changed', view: payinViewOf(found.record, found.attempt, found.card) };
  }
  if (change.subject === 'payout') {
    const found = await repos.payouts.withViewFacts(change.rowId);
    return found && payoutPush(found);
  }
  const token = await repos.tokens.byId(change.rowId);
  return token && { channel: 'tokens:token-changed', view: tokenView(token) };
}

export function publishPush(events: EventBus, push: TransactionPush): void {
  if (push.channel === 'payins:payin-changed') events.publish(push.channel, push.view);
  else if (push.channel === 'payouts:payout-changed') events.publish(push.channel, push.view);
  else events.publish(push.channel, push.view);
}

/** Publishes the current view of one changed row; a row that is gone publishes nothing. */
export async function publishTransactionChanged(events: EventBus, repos: PushRepos, change: TransactionChange): Promise<void> {
  const push = await readPush(repos, change);
  if (push) publishPush(events, push);
}
