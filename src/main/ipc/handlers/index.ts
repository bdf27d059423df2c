// Every invoke channel's handler, one file per contract file (src/shared/contract/<domain>.ts ↔
// <domain>.ts here). Each file's return type is its contract's channel map, so a channel added to
// a contract file without its handler fails the typecheck there, and createHandlers fails it when a
// domain is left out. Handlers are adapters: they pick the input apart, call one service method and
// return what it returns (the dispatcher awaits it); any rule lives in the service.
import type { Handlers } from '../dispatcher';
import { appHandlers } from './app';
import { approvalsHandlers } from './approvals';
import { batchesHandlers } from './batches';
import { ledgerHandlers } from './ledger';
import { limitsHandlers } from './limits';
import { listenerHandlers } from './listener';
import { notificationsHandlers } from './notifications';
import { paymentsHandlers } from './payments';
import { profilesHandlers } from './profiles';
import { reconciliationHandlers } from './reconciliation';
import { retentionHandlers } from './retention';
import { teamHandlers } from './team';
import { viewsHandlers } from './views';

/** The services the handlers hand off to, by the names each handler file asks for. */
export type HandlerDeps = Parameters<typeof appHandlers>[0] &
  Parameters<typeof approvalsHandlers>[0] &
  Parameters<typeof batchesHandlers>[0] &
  Parameters<typeof ledgerHandlers>[0] &
  Parameters<typeof limitsHandlers>[0] &
  Parameters<typeof listenerHandlers>[0] &
  Parameters<typeof notificationsHandlers>[0] &
  Parameters<typeof paymentsHandlers>[0] &
  Parameters<typeof profilesHandlers>[0] &
  Parameters<typeof reconciliationHandlers>[0] &
  Parameters<typeof retentionHandlers>[0] &
  Parameters<typeof teamHandlers>[0] &
  Parameters<typeof viewsHandlers>[0];

export function createHandlers(deps: HandlerDeps): Handlers {
  return {
    ...appHandlers(deps),
    ...approvalsHandlers(deps),
    ...batchesHandlers(deps),
    ...ledgerHandlers(deps),
    ...limitsHandlers(deps),
    ...listenerHandlers(deps),
    ...notificationsHandlers(deps),
    ...paymentsHandlers(deps),
    ...profilesHandlers(deps),
    ...reconciliationHandlers(deps),
    ...retentionHandlers(deps),
    ...teamHandlers(deps),
    ...viewsHandlers(deps),
  };
}
