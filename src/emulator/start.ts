// Composes the emulator: state, services, routes, transport. Used in-process by Paydesk's main
// process (embedded default) and by the CLI (npm run gateway).
import { registerAdmin, ADMIN_PREFIX } from './admin/routes';
import { apiError, type Flavor } from './api/replies';
import { API_PREFIX, registerApi } from './api/routes';
import type { ApiDeps } from './api/context';
import { IdempotencyGate } from './domain/idempotency-gate';
import { JwtVerifier } from './domain/jwt-verifier';
import { loadMerchant, MerchantAccount } from './domain/merchant';
import { PayinService } from './domain/payin-service';
import type { LifecycleDeps } from './domain/lifecycle';
import { PayoutService } from './domain/payout-service';
import { RateLimiter } from './domain/rate-limiter';
import { SettlementFaultState } from './domain/settlement/faults';
import { FeeTable } from './domain/settlement/fee-table';
import { assertFeeOptions } from './domain/settlement/fees';
import { assertPeriod, DEFAULT_SETTLEMENT_PERIOD_MS } from './domain/settlement/periods';
import { SettlementScheduler } from './domain/settlement/scheduler';
import { SettlementService } from './domain/settlement/service';
import { TimerSet } from './domain/timers';
import { PayoutWallet } from './domain/wallet';
import { HOSTED_PREFIX, registerHostedPage } from './hosted/page';
import { Router } from './http/router';
import { startTransport, type TransportRefusal } from './http/server';
import type { Reply, Request } from './http/types';
import { FaultState } from './notify/faults';
import { Notifier } from './notify/notifier';
import {
  DEFAULT_DELIVERY_SCHEDULE,
  DEFAULT_HTTP_LIMITS,
  DEFAULT_RATE_LIMIT,
  DEFAULT_SCENARIO_TIMING,
  type EmulatorHandle,
  type EmulatorOptions,
} from './options';
import { iso, randomIds, stderrLogger, systemClock } from './runtime';
import { BankRepo } from './store/bank';
import { openDatabase } from './store/database';
import { DeliveryRepo } from './store/deliveries';
import { GroupCommit } from './store/group-commit';
import { IdempotencyRepo } from './store/idempotency';
import { KeyRepo } from './store/keys';
import { MetaRepo } from './store/meta';
import { PayinRepo } from './store/payins';
import { PayoutRepo } from './store/payouts';
import { SettlementRepo } from './store/settlements';
import { TokenRepo } from './store/tokens';
import { WalletRepo } from './store/wallet';

/** Payout paths answer errors in the payout shape (a C-code in status_code), every other path in the pay-in shape. */
const flavorOf = (path: string | null): Flavor => (path !== null && path.startsWith(`${API_PREFIX}/payouts`) ? 'payout' : 'payin');

/** 404 / 405 in the shape of the area the path belongs to. */
function fallback(req: Request, kind: 'not_found' | 'method_not_allowed', allow: string[]): Reply {
  const flavor = flavorOf(req.path);
  if (kind === 'not_found') {
    return apiError(flavor, { http: 404, reason_code: 'INVALID_REQUEST', error: 'not_found', message: `No endpoint at ${req.path}` });
  }
  return {
    ...apiError(flavor, { http: 405, reason_code: 'INVALID_REQUEST', error: 'method_not_allowed', message: `${req.method} is not allowed on ${req.path}; use ${allow.join(', ')}` }),
    headers: { allow: allow.join(', ') },
  };
}

const REFUSAL_STATUS: Record<TransportRefusal, number> = { bad_http_request: 400, request_timeout: 408, headers_too_large: 431 };
const REFUSAL_MESSAGE: Record<TransportRefusal, string> = {
  bad_http_request: 'Not a readable HTTP request',
  request_timeout: 'The request did not arrive in time',
  headers_too_large: 'Request headers are too large',
};

export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const host = options.host ?? '127.0.0.1';
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds;
  const log = options.logger ?? stderrLogger(options.quiet ?? false);
  const schedule = { ...DEFAULT_DELIVERY_SCHEDULE, ...options.delivery };
  const rateLimit = { ...DEFAULT_RATE_LIMIT, ...options.rateLimit };
  const timing = { ...DEFAULT_SCENARIO_TIMING, ...options.scenarioTiming };
  const limits = { ...DEFAULT_HTTP_LIMITS, ...options.http };
  const periodMs = assertPeriod(options.settlement?.periodMs ?? DEFAULT_SETTLEMENT_PERIOD_MS);
  assertFeeOptions(options.settlement?.fees ?? {});

  const db = openDatabase(options.dataFile);
  const meta = new MetaRepo(db);
  const merchant = new MerchantAccount(loadMerchant(meta, ids, options.merchant), meta);
  const faults = new FaultState();
  const deliveries = new DeliveryRepo(db);
  const afterCommit = (effect: () => void): void => db.afterCommit(effect);
  const notifier = new Notifier({ repo: deliveries, clock, schedule, faults, log, afterCommit });
  const timers = new TimerSet();
  const payinRepo = new PayinRepo(db);
  const payoutRepo = new PayoutRepo(db);
  const tokens = new TokenRepo(db);
  const keys = new KeyRepo(db);
  const lifecycle: LifecycleDeps = { notifier, clock, ids, timing, timers, log, afterCommit };
  const payins = new PayinService({ ...lifecycle, payins: payinRepo, tokens });
  const atomic = <T>(work: () => T): T => db.transaction(work);
  const wallet = new PayoutWallet({ repo: new WalletRepo(db), meta, clock, ids, atomic, enforceBalance: options.settlement?.enforceWalletBalance });
  const payouts = new PayoutService({ ...lifecycle, payouts: payoutRepo, wallet, atomic });
  const settlementRepo = new SettlementRepo(db);
  const bank = new BankRepo(db);
  const fees = new FeeTable(meta, options.settlement?.fees);
  const settlementFaults = new SettlementFaultState(meta);
  const settlements = new SettlementService({ repo: settlementRepo, bank, meta, fees, faults: settlementFaults, atomic, clock, ids, log, periodMs });
  const limiter = new RateLimiter(clock, rateLimit);
  const commits = new GroupCommit(db);
  const gate = new IdempotencyGate(new IdempotencyRepo(db), () => iso(clock.now()), commits);
  const deps: ApiDeps = { clock, merchant, faults, limiter, payins, payinRepo, payouts, payoutRepo, keys, tokens, jwt: new JwtVerifier(keys, clock) };

  const router = new Router();
  const urls = { baseUrl: '', adminUrl: '', hostedUrl: '' };
  registerApi(router, deps, gate);
  const settlementDeps = { settlements, settlementRepo, bank, walletRepo: new WalletRepo(db), fees, settlementFaults, wallet };
  registerAdmin(router, { ...deps, ...settlementDeps, notifier, deliveries, schedule, defaultRateLimit: rateLimit, urls });
  registerHostedPage(router, payinRepo, payins);

  let transport;
  try {
    transport = await startTransport(host, options.port ?? 0, {
      limits,
      log,
      dispatch: (req) => router.dispatch(req, fallback),
      tooLarge: (path) => apiError(flavorOf(path), { http: 413, reason_code: 'INVALID_REQUEST', error: 'body_too_large', message: `Request body larger than ${limits.bodyLimitBytes} bytes` }),
      internalError: (path) => {
        const flavor = flavorOf(path);
        return apiError(flavor, { http: 500, status_code: flavor === 'payin' ? 501 : 'C501', reason_code: 'SYSTEM_ERROR', error: 'internal', message: 'Unexpected emulator error' });
      },
      refused: (path, why) => apiError(flavorOf(path), { http: REFUSAL_STATUS[why], reason_code: 'INVALID_REQUEST', error: why, message: REFUSAL_MESSAGE[why] }),
    });
  } catch (err) {
    db.close();
    throw err;
  }

  const hostPart = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  const origin = `http://${hostPart}:${transport.port}`;
  Object.assign(urls, { baseUrl: `${origin}${API_PREFIX}`, adminUrl: `${origin}${ADMIN_PREFIX}`, hostedUrl: `${origin}${HOSTED_PREFIX}` });
  notifier.start();
  payins.resume();
  payouts.resume();
  new SettlementScheduler({ service: settlements, clock, timers, log }).start();
  log.info('listening', { base_url: urls.baseUrl, data: options.dataFile ?? ':memory:' });

  let closing: Promise<void> | undefined;
  return {
    ...urls,
    port: transport.port,
    merchant: { ...merchant.credentials },
    close: () => {
      closing ??= (async () => {
        timers.close();
        await notifier.close();
        await transport.close();
        commits.flush();
        db.close();
      })();
      return closing;
    },
  };
}
