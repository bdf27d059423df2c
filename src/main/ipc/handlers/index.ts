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
import { noticesHandlers } from './notices';
import { notificationsHandlers } from './notifications';
import { paymentsHandlers } from './payments';
import { profilesHandlers } from './profiles';
import { reconciliationHandlers } from './reconciliation';
import { retentionHandlers } from './retention';
import { statementsHandlers } from './statements';
import { teamHandlers } from './team';
import { viewsHandlers } from './views';

/** Every handler file, once: what createHandlers builds, and what their services add up to. */
const handlerFiles = [
  appHandlers,
  approvalsHandlers,
  batchesHandlers,
  ledgerHandlers,
  limitsHandlers,
  listenerHandlers,
  noticesHandlers,
  notificationsHandlers,
  paymentsHandlers,
  profilesHandlers,
  reconciliationHandlers,
  retentionHandlers,
  statementsHandlers,
  teamHandlers,
  viewsHandlers,
] as const;

type HandlerFile = (typeof handlerFiles)[number];
type AllOf<Union> = (Union extends unknown ? (part: Union) => void : never) extends (all: infer All) => void ? All : never;

/** The services the handlers hand off to, by the names each handler file asks for. */
export type HandlerDeps = AllOf<Parameters<HandlerFile>[0]>;

export function createHandlers(deps: HandlerDeps): Handlers {
  // Typed as every file's channels together: a file left out of the list fails the typecheck here.
  const channels: AllOf<ReturnType<HandlerFile>> = Object.assign({}, ...handlerFiles.map((file) => file(deps)));
  return channels;
}
