import type { ledgerContract } from '../../../shared/contract';
import type { LedgerViews } from '../../services/ledger-views/ledger-views';
import type { Handlers } from '../dispatcher';

export function ledgerHandlers({ views }: { views: LedgerViews }): Pick<Handlers, keyof typeof ledgerContract.invoke> {
  return {
    'payins:list': (input) => views.listPayins(input),
    'payins:count': (input) => views.countPayins(input),
    'payouts:list': (input) => views.listPayouts(input),
    'payouts:count': (input) => views.countPayouts(input),
    'search:lookup': ({ query }) => views.search(query),
    'payins:timeline': ({ id }) => views.payinTimeline(id),
    'payouts:timeline': ({ id }) => views.payoutTimeline(id),
    'codes:usage': () => views.codesUsage(),
  };
}
