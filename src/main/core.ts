// The composition root shared by the Electron entry, web mode and the team server: it opens the
// ledger, wires the services on it (composition/services.ts: only wiring) and starts them step by
// step (composition/startup.ts: the ordered steps, each with its close), and exposes one
// dispatcher and one event bus.
import { mkdirSync } from 'node:fs';
import type { AppInfo } from '../shared/contract';
import type { startEmulator } from '../emulator/index';
import { wireServices } from './composition/services';
import { startupSteps } from './composition/startup';
import { startSteps } from './composition/steps';
import type { Dispatch } from './ipc/dispatcher';
import { openLedger, type Ledger } from './ledger/connection';
import { engineMigrations, steps, type MigrationStep } from './ledger/migrations/index';
import type { Listener } from './listener/index';
import type { Logger } from './logger';
import { ledgerFile } from './platform/paths';
import type { EventBus } from './services/event-bus';
import type { GatewaySessionsDeps } from './services/gateway-sessions';
import type { Health } from './services/health';
import type { Metrics } from './services/metrics';
import type { LocalGateway } from './services/local-gateway';
import type { SmtpOptions } from './services/notices/channels';
import type { SenderTimings } from './services/notices/notice-sender';
import type { NoticesDeps } from './services/notices/notices';
import type { ApprovalServiceDeps } from './services/approvals/approval-service';
import type { BatchServiceDeps } from './services/payouts-batch/batch-service';
import type { InstanceTimings } from './services/scale-out/instance';
import { instanceIdIn } from './services/scale-out/instance';
import type { SecretStore } from './services/secret-store';
import type { Authorizer } from './services/team/authorizer';
import type { ServerSecretStore } from './services/team/server-secret-store';
import type { TeamService, TeamServiceDeps } from './services/team/team-service';
import type { RateLimit } from './services/verification/rate-limiter';
import type { PollTimings } from './services/verification/status-poller';
import type { VerifierTimings } from './services/verification/verifier';

export interface CoreOptions {
  mode: AppInfo['mode'];
  version: string;
  dataDir: string;
  /** The PostgreSQL ledger (postgres://…); undefined: the SQLite ledger in the data directory. */
  database?: string | undefined;
  /** Connections kept to that PostgreSQL ledger at most (default DEFAULT_POOL_SIZE). */
  databasePoolSize?: number;
  /** Where credentials are kept: the OS keychain on a desk. A team server (`team`) keeps its own, sealed in the ledger. */
  secrets?: SecretStore;
  log: Logger;
  now?: () => Date;
  /** Notification listener address; port 0 reuses the port of the previous run, else any free one. */
  listener?: { host?: string; port?: number; tls?: { key: string; cert: string } };
  /** The embedded emulator's options (tests make its timings short). */
  emulator?: Omit<Parameters<typeof startEmulator>[0], 'dataFile'>;
  /**
   * An emulator that is already running, used instead of starting the embedded one and left
   * running by close() (crash tests: the gateway must outlive an app killed with SIGKILL).
   */
  localGateway?: LocalGateway;
  /** Gateway call limits: per-call timeout and the create-call retry policy (tests make them short). */
  gateway?: Pick<GatewaySessionsDeps, 'timeoutMs' | 'runner' | 'fetch'>;
  /** Payout batches: items in flight at once and the progress push interval (tests). */
  batches?: Pick<BatchServiceDeps, 'concurrency' | 'progressIntervalMs'>;
  approvals?: Pick<ApprovalServiceDeps, 'expiryRecheckMs'>;
  /** How often the inbox's announcer looks for new notices (docs/notifications.md). */
  notices?: Pick<NoticesDeps, 'announceMs'> & {
    /** A team server's SMTP server (none: no e-mail is sent; the choices wait in the outbox until one is set up). */
    smtp?: SmtpOptions;
    /** The outbox sender's pace and retries (services/notices/notice-sender.ts). */
    sender?: Partial<SenderTimings>;
    /** How often the watches look (services/notices/watches.ts; default 30 s). */
    watchEveryMs?: number;
  };
  /** Verification of notifications by status reads: client-side rate limit and recheck timings (tests make them short). */
  verification?: { rateLimit?: RateLimit; timings?: Partial<VerifierTimings>; maxRateLimitRetries?: number; polling?: Partial<PollTimings> };
  /** The bus to publish pushes on; web mode makes it before the core, so its event streams can open early. */
  events?: EventBus;
  /** Marks start-up phases (web mode's PAYDESK_TRACE=1 prints them with their time). */
  trace?: (phase: string) => void;
  /** Runs as a team server (docs/team.md): people, roles and sessions; credentials sealed under this envelope key. */
  team?: Omit<TeamServiceDeps, 'repos' | 'events' | 'now'>;
  /**
   * Several processes on one PostgreSQL ledger (docs/team.md, "Several instances"): how often this
   * one says it is alive, after how long without a word another is taken for dead, and how often
   * one that does not lead the recovery tries to (tests make them short).
   */
  scaleOut?: Partial<InstanceTimings> & { leaderRetryMs?: number };
  /** Where this instance's metrics are counted (the team server's, with the process's own); default a registry of its own. */
  metrics?: Metrics;
  /** The ledger's migration steps (tests: an older or a newer Paydesk than this build). */
  migrations?: readonly MigrationStep[];
}

export interface Core {
  dispatch: Dispatch;
  events: EventBus;
  ledger: Ledger;
  local: LocalGateway;
  listener: Listener;
  /** A team server's people and its guard (undefined on a desk). */
  team?: { service: TeamService; authorizer: Authorizer; secrets: ServerSecretStore };
  /**
   * Stopping because a newer Paydesk migrated the shared ledger past what this one can run with
   * (services/scale-out/schema-watch.ts): `refusal()` is what every call gets from then on (null
   * while serving); `drained` resolves once the sends in flight are recorded: close the core then.
   */
  drain: { refusal(): string | null; drained: Promise<string> };
  /** What /readyz answers (services/health.ts); `stopping()` turns it 503 before the server stops taking requests. */
  health: Pick<Health, 'ready' | 'stopping'>;
  /** This instance's metrics (GET /metrics); the HTTP server adds what it holds (its event streams). */
  metrics: Metrics;
  close(): Promise<void>;
}

export async function createCore(options: CoreOptions): Promise<Core> {
  const { dataDir, now = () => new Date(), trace = () => {} } = options;
  trace('core: opening the ledger');
  // Opened first: a ledger that cannot be opened (a bad address, a refused connection, a wrong
  // password, a missing database) leaves nothing behind, not even the data directory. SQLite's
  // open makes the directory of its file itself.
  const migrations = engineMigrations(options.migrations ?? steps);
  const ledger = await openLedger(options.database ? { url: options.database, ...(options.databasePoolSize ? { poolSize: options.databasePoolSize } : {}) } : { file: ledgerFile(dataDir) }, { now, migrations: migrations.sqlite, postgresMigrations: migrations.postgres });
  trace('core: ledger open');
  let core;
  try {
    // The emulator's state (and, on SQLite, the ledger) lives here, whichever engine holds the ledger.
    mkdirSync(dataDir, { recursive: true });
    // This process as one instance of the ledger's workers: what it sends and runs names it.
    const instanceId = instanceIdIn(dataDir);
    // Every later line of the log names this instance.
    options.log.bind?.({ instance: instanceId });
    core = wireServices(ledger, instanceId, options, (ledger.engine === 'postgres' ? migrations.postgres : migrations.sqlite).at(-1)?.version ?? 0);
  } catch (error) {
    await ledger.close();
    throw error;
  }
  const close = await startSteps(startupSteps(core, options), trace);
  return { dispatch: core.dispatch, events: core.screens, ledger, local: core.local, listener: core.listener, ...(core.team ? { team: core.team } : {}), drain: { refusal: () => (core.drain.reason === null ? null : core.drain.refusal()), drained: core.drain.drained }, health: core.health, metrics: core.metrics, close };
}
