// A Paydesk core in its own process, driven only through the contract (core.dispatch), so a test
// can kill it with SIGKILL at any point and start it again on the same data directory:
//   node --import tsx test/reliability/helpers/core-child.ts <config.json> <run number>
// Each run first settles what an earlier run left behind (attempts still 'prepared' or 'unknown'
// after start-up recovery, resumed under their own Idempotency-Key, card data given again), then
// creates the plan items the ledger does not hold yet, one by one. It prints one JSON line per
// step on stdout ({"event": …}); the core's log goes to a file. Mode 'exit' closes the core and
// exits 0 once the plan is done; mode 'serve' keeps the core (and its listener) up until SIGTERM.
import type { SubmitResult } from '../../../src/shared/contract';
import { createCore, type Core } from '../../../src/main/core';
import { KeytarSecretStore } from '../../../src/main/platform/keychain';
import type { LocalGateway } from '../../../src/main/services/local-gateway';
import type { RateLimit } from '../../../src/main/services/verification/rate-limiter';
import { call, childArgs, CRASH_VERIFICATION_TIMINGS, crashGateway, emit, fileLogger, must, runChild, sleep, stopOnSignals } from './child-side';
import { reentry, type PlanItem } from './plan';

export interface ChildConfig {
  dataDir: string;
  /** The PostgreSQL ledger (postgres://…); absent: the SQLite ledger in the data directory. */
  database?: string | undefined;
  logFile: string;
  keychainService: string;
  gateway: Omit<LocalGateway, 'registerKey' | 'close'>;
  plan: PlanItem[];
  mode: 'exit' | 'serve';
  /** Pause between two creates (spreads notification traffic over the kills). */
  paceMs: number;
  /** A tokenization plan needs a JWT signing key: generated (and registered with the emulator) once. */
  needsSigningKey: boolean;
  verificationRateLimit?: RateLimit;
  /** Per-call timeout of gateway calls. */
  gatewayTimeoutMs: number;
}

const { config, run } = childArgs<ChildConfig>();
const log = fileLogger(config.logFile, run);

type Detail = { attempts: { idempotencyKey: string; state: string }[] };

/** The ledger's attempts for a plan item, or null when the ledger has no row for it yet. */
async function attemptsOf(core: Core, item: PlanItem): Promise<Detail['attempts'] | null> {
  const envelope =
    item.kind === 'payout'
      ? await call<Detail>(core, 'payouts:get', { merchantReference: item.ref })
      : await call<Detail>(core, 'payins:get', { requestId: item.ref });
  if (envelope.ok) return envelope.value.attempts;
  if (envelope.error.code === 'not_found') return null;
  throw new Error(`lookup of ${item.ref} failed: ${envelope.error.message}`);
}

const SETTLED = new Set(['succeeded', 'rejected']);

/** Resumes one attempt under its own key until its outcome is known (bounded). */
async function settle(core: Core, item: PlanItem, key: string, why: string): Promise<string> {
  let outcome = 'unknown';
  for (let round = 0; round < 20; round++) {
    const result = await must<SubmitResult>(core, 'attempts:resume', { key, ...reentry(item) });
    outcome = result.outcome;
    emit({ event: 'resumed', ref: item.ref, why, outcome, round });
    if (SETTLED.has(outcome)) return outcome;
    await sleep(100 + round * 50);
  }
  throw new Error(`attempt ${key} of ${item.ref} still ${outcome} after 20 resumes`);
}

async function ensureSigningKey(core: Core): Promise<void> {
  const profiles = await must<{ id: string; environment: string; credentials: { privateKey: { set: boolean } } }[]>(core, 'profiles:list');
  const local = profiles.find((p) => p.environment === 'local');
  if (!local) throw new Error('no local profile');
  if (!local.credentials.privateKey.set) await must(core, 'credentials:generate-key', { profileId: local.id });
}

async function main(): Promise<void> {
  const gateway: LocalGateway = {
    ...config.gateway,
    async registerKey(kid, publicJwk) {
      const response = await fetch(`${config.gateway.adminUrl}/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ merchant_id: config.gateway.merchant.merchant_id, kid, public_jwk: publicJwk }),
      });
      if (!response.ok) throw new Error(`the emulator refused the key: HTTP ${response.status}`);
    },
    close: async () => {},
  };
  const core = await createCore({
    mode: 'web',
    version: 'reliability',
    dataDir: config.dataDir,
    database: config.database,
    secrets: new KeytarSecretStore(config.keychainService),
    log,
    localGateway: gateway,
    gateway: crashGateway(config.gatewayTimeoutMs),
    ...(config.verificationRateLimit ? { verification: { rateLimit: config.verificationRateLimit, timings: CRASH_VERIFICATION_TIMINGS } } : {}),
  });
  const states = await core.ledger.all<{ state: string; n: number }>('SELECT state, count(*) AS n FROM attempts GROUP BY state');
  emit({ event: 'ready', pid: process.pid, attempts: Object.fromEntries(states.map((s) => [s.state, s.n])), listenerPort: core.listener.port });

  const stop = stopOnSignals(core, log);

  if (config.needsSigningKey) await ensureSigningKey(core);

  // 1. What an earlier run left unsettled (start-up recovery already turned 'sending' into 'unknown').
  for (const item of config.plan) {
    const attempts = await attemptsOf(core, item);
    if (attempts === null) continue;
    for (const attempt of attempts) {
      if (!SETTLED.has(attempt.state)) await settle(core, item, attempt.idempotencyKey, `left ${attempt.state}`);
    }
  }
  emit({ event: 'settled' });

  // 2. What was never recorded: a new attempt each (nothing of it can have been sent).
  let created = 0;
  for (const item of config.plan) {
    if ((await attemptsOf(core, item)) !== null) continue;
    emit({ event: 'creating', ref: item.ref, kind: item.kind });
    const channel = item.kind === 'payin' ? 'payins:create' : item.kind === 'payout' ? 'payouts:create' : 'tokens:tokenize';
    const result = await must<SubmitResult>(core, channel, item.form);
    emit({ event: 'created', ref: item.ref, outcome: result.outcome });
    if (!SETTLED.has(result.outcome)) await settle(core, item, result.attempt.idempotencyKey, `create answered ${result.outcome}`);
    created++;
    if (config.paceMs > 0) await sleep(config.paceMs);
  }
  emit({ event: 'done', created });
  if (config.mode === 'exit') stop();
}

runChild(main, log);
