// One handler file per contract file, and every contract channel answered. The typecheck already
// refuses a handler file that misses one of its contract's channels (its return type is
// Pick<Handlers, keyof typeof <domain>Contract.invoke>); these tests prove the assembled map at run
// time, as the dispatcher looks it up.
import { describe, expect, it } from 'vitest';
import type { Handlers } from '../../../src/main/ipc/dispatcher';
import { appHandlers } from '../../../src/main/ipc/handlers/app';
import { approvalsHandlers } from '../../../src/main/ipc/handlers/approvals';
import { batchesHandlers } from '../../../src/main/ipc/handlers/batches';
import { createHandlers, type HandlerDeps } from '../../../src/main/ipc/handlers/index';
import { ledgerHandlers } from '../../../src/main/ipc/handlers/ledger';
import { limitsHandlers } from '../../../src/main/ipc/handlers/limits';
import { listenerHandlers } from '../../../src/main/ipc/handlers/listener';
import { noticesHandlers } from '../../../src/main/ipc/handlers/notices';
import { notificationsHandlers } from '../../../src/main/ipc/handlers/notifications';
import { paymentsHandlers } from '../../../src/main/ipc/handlers/payments';
import { profilesHandlers } from '../../../src/main/ipc/handlers/profiles';
import { reconciliationHandlers } from '../../../src/main/ipc/handlers/reconciliation';
import { retentionHandlers } from '../../../src/main/ipc/handlers/retention';
import { statementsHandlers } from '../../../src/main/ipc/handlers/statements';
import { teamHandlers } from '../../../src/main/ipc/handlers/team';
import { viewsHandlers } from '../../../src/main/ipc/handlers/views';
import {
  appContract,
  approvalsContract,
  batchesContract,
  invokeChannels,
  ledgerContract,
  limitsContract,
  listenerContract,
  noticesContract,
  notificationsContract,
  paymentsContract,
  profilesContract,
  reconciliationContract,
  retentionContract,
  statementsContract,
  teamContract,
  viewsContract,
} from '../../../src/shared/contract';

/**
 * Stands for every service: handlers only close over their services when built, so any property
 * of it (at any depth) is itself. Calling a handler is what the integration and contract tests do.
 */
const services: HandlerDeps = new Proxy(() => {}, { get: (_target, _key, proxy: unknown) => proxy }) as unknown as HandlerDeps;

const domains = [
  ['app', appContract, appHandlers],
  ['approvals', approvalsContract, approvalsHandlers],
  ['batches', batchesContract, batchesHandlers],
  ['ledger', ledgerContract, ledgerHandlers],
  ['limits', limitsContract, limitsHandlers],
  ['listener', listenerContract, listenerHandlers],
  ['notices', noticesContract, noticesHandlers],
  ['notifications', notificationsContract, notificationsHandlers],
  ['payments', paymentsContract, paymentsHandlers],
  ['profiles', profilesContract, profilesHandlers],
  ['reconciliation', reconciliationContract, reconciliationHandlers],
  ['retention', retentionContract, retentionHandlers],
  ['statements', statementsContract, statementsHandlers],
  ['team', teamContract, teamHandlers],
  ['views', viewsContract, viewsHandlers],
] as const;

// Typecheck-level: a handler file that leaves out one of its contract file's channels does not compile.
// @ts-expect-error 'settings:update' is missing: the return type is the contract file's whole channel map.
const _partial: Pick<Handlers, keyof typeof appContract.invoke> = { 'app:get-info': () => services.appInfo.info(), 'settings:get': () => services.settings.get() };

describe('contract handlers', () => {
  it('answers every contract channel with a function, and nothing else', () => {
    const handlers = createHandlers(services);
    for (const channel of invokeChannels) expect(typeof handlers[channel], channel).toBe('function');
    expect(Object.keys(handlers).sort()).toEqual([...invokeChannels].sort());
  });

  it.each(domains)('handles in %s exactly the channels of its contract file', (_domain, contract, handlersOf) => {
    expect(Object.keys(handlersOf(services)).sort()).toEqual(Object.keys(contract.invoke).sort());
  });

  it('gives the contract files, taken together, every channel once', () => {
    const channels = domains.flatMap(([, contract]) => Object.keys(contract.invoke));
    expect(channels.sort()).toEqual([...invokeChannels].sort());
  });
});
