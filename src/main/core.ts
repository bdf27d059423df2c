// The composition root shared by the Electron entry and the web-mode entry: it opens the ledger,
// starts the embedded gateway emulator and the notification listener, builds the services with
// their dependencies, and exposes one dispatcher and one event bus.
import path from 'node:path';
import type { AppInfo } from '../shared/contract';
import { startEmulator } from '../emulator/index';
import { createDispatcher, type Dispatch, type Handlers } from './ipc/dispatcher';
import { appHandlers } from './ipc/app-handlers';
import { profileHandlers } from './ipc/profile-handlers';
import { ledgerHandlers, notificationHandlers, reconciliationHandlers } from './ipc/ledger-handlers';
import { paymentHandlers } from './ipc/payment-handlers';
import { randomIds, systemClock } from './gateway/runtime';
import { openLedger, schemaVersion, type Ledger } from './ledger/connection';
import { createRepositories } from './ledger/repositories/index';
import { notificationLink, startListener, type Listener } from './listener/index';
import type { Logger } from './logger';
import { ledgerFile } from './platform/paths';
import { CredentialService } from './services/credential-service';
import { EventBus } from './services/event-bus';
import { GatewaySessions, type GatewaySessionsDeps } from './services/gateway-sessions';
import { localGatewayFrom, type LocalGateway } from './services/local-gateway';
import { NotificationApplier, type AppliedNotification } from './services/notification-applier';
import { EvidenceService } from './services/evidence/evidence-service';
import { LedgerViews } from './services/ledger-views/ledger-views';
import { NotificationInspector, notificationView } from './services/ledger-views/notification-inspector';
import { ReconciliationService } from './services/reconciliation/reconciliation-service';
import { Sweeper } from './services/reconciliation/sweep';
import { GATEWAY_READ_LIMIT, ReadRateLimiter, type RateLimit } from './services/verification/rate-limiter';
import { StatusReader } from './services/verification/status-reader';
import { Verifier, type VerifierTimings } from './services/verification/verifier';
import { environmentLabels, ProfileService } from './services/profile-service';
import type { SecretStore } from './services/secret-store';
import { SettingsService } from './services/settings-service';
import { changesFromNotification, createPaymentServices, publishTransactionChanged } from './services/payments/index';

export interface CoreOptions {
  mode: AppInfo['mode'];
  version: string;
  dataDir: string;
  secrets: SecretStore;
  log: Logger;
  now?: () => Date;
  /** Notification listener address; port 0 reuses the port of the previous run, else any free one. */
  listener?: { host?: string; port?: number };
  /** The embedded emulator's options (tests make its timings short). */
  emulator?: Omit<Parameters<typeof startEmulator>[0], 'dataFile'>;
  /** Gateway call limits: per-call timeout and the create-call retry policy (tests make them short). */
  gateway?: Pick<GatewaySessionsDeps, 'timeoutMs' | 'runner'>;
  /** Verification of notifications by status reads: client-side rate limit and recheck timings (tests make them short). */
  verification?: { rateLimit?: RateLimit; timings?: Partial<VerifierTimings>; maxRateLimitRetries?: number };
}

export interface Core {
  dispatch: Dispatch;
  events: EventBus;
  ledger: Ledger;
  local: LocalGateway;
  listener: Listener;
  close(): Promise<void>;
}

export async function createCore(options: CoreOptions): Promise<Core> {
  const { mode, version, dataDir, secrets, log, now = () => new Date() } = options;
  const file = ledgerFile(dataDir);
  const ledger = openLedger({ file, now });
  const closers: (() => Promise<void> | void)[] = [() => {
    ledger.close();
  }];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer();
  };

  try {
    const events = new EventBus();
    const repos = createRepositories(ledger, now);
    const settings = new SettingsService(ledger, events, now);

    const emulator = await startEmulator({ quiet: true, ...options.emulator, dataFile: path.join(dataDir, 'emulator.sqlite') });
    const local = localGatewayFrom(emulator);
    closers.push(() => local.close());

    // Bound below, once the verifier exists; what is applied before (recoverPending) is found by verifier.recover().
    let onApplied: (result: AppliedNotification) => void = () => {};
    const applier = new NotificationApplier({ db: ledger, now, log, onApplied: (result) => onApplied(result) });
    const listener = await startListener({
      db: ledger,
      host: options.listener?.host ?? '127.0.0.1',
      port: options.listener?.port ?? settings.listenerPort(),
      onStored: (id) => applier.enqueue(id),
      log,
    });
    closers.push(() => listener.close());
    settings.rememberListenerPort(listener.port);
    applier.recoverPending();

    const credentials = new CredentialService({ secrets, profiles: repos.profiles, audit: repos.audit, local });
    const profiles = new ProfileService({
      profiles: repos.profiles,
      audit: repos.audit,
      credentials,
      events,
      local,
      notificationUrl: (profile) => notificationLink(profile, listener),
      onPathsChanged: () => listener.refreshProfiles(),
    });
    profiles.ensureLocalProfile();
    const gateways = new GatewaySessions({ credentials, attempts: repos.attempts, ...options.gateway });
    const payments = createPaymentServices({
      db: ledger,
      repos,
      profiles,
      credentials,
      gateways,
      applier,
      events,
      notificationUrl: (profile) => notificationLink(profile, listener),
      clock: systemClock,
      ids: randomIds,
    });
    // Before anything is sent: attempts a crash left in "sending" become "unknown" (never "failed").
    payments.attempts.recoverInterrupted();

    // Notifications are claims: each one that claims news is confirmed by a status read (issue 5).
    const readLimiter = new ReadRateLimiter(options.verification?.rateLimit ?? GATEWAY_READ_LIMIT);
    closers.push(() => readLimiter.close());
    const reader = new StatusReader({ db: ledger, repos, sessions: gateways, limiter: readLimiter, now, maxRateLimitRetries: options.verification?.maxRateLimitRetries });
    const publishNotification = (id: number) => {
      const stored = repos.notifications.byId(id);
      if (stored) events.publish('notifications:notification-changed', notificationView(stored));
    };
    const verifier = new Verifier({
      reader,
      repos,
      log,
      timings: options.verification?.timings,
      onVerified: ({ subject, rowId, read }) => {
        read?.contradictedNotifications.forEach(publishNotification);
        publishTransactionChanged(events, repos, { subject, rowId });
      },
    });
    closers.push(() => verifier.close());
    onApplied = (result) => {
      publishNotification(result.id);
      for (const change of changesFromNotification(result)) publishTransactionChanged(events, repos, change);
      verifier.onApplied(result);
    };
    applier.retryOrphans();
    verifier.recover();
    const views = new LedgerViews(ledger, repos);
    const sweeper = new Sweeper({ db: ledger, verifier, applier, now, log, publish: (state) => events.publish('reconciliation:sweep-changed', state) });
    closers.push(() => sweeper.close());
    const reconciliation = new ReconciliationService({ db: ledger, now, sweeper });
    const inspector = new NotificationInspector({ db: ledger, repos, applier, now });
    const evidence = new EvidenceService({ repos, views, now, version });

    const handlers: Handlers = {
      ...appHandlers({
        settings,
        info: async () => {
          const active = repos.profiles.active();
          const kind = active?.environment ?? 'local';
          return {
            version,
            mode,
            dataDir,
            ledger: { file, schemaVersion: schemaVersion(ledger) },
            keychain: await secrets.status(),
            environment: { kind, label: active && kind !== 'local' ? `${environmentLabels[kind]} · ${active.name}` : environmentLabels[kind] },
          };
        },
      }),
      ...profileHandlers({ profiles, credentials }),
      ...paymentHandlers(payments),
      ...ledgerHandlers({ views }),
      ...notificationHandlers({ inspector }),
      ...reconciliationHandlers({ reconciliation, evidence }),
    };
    const dispatch = createDispatcher(handlers, (channel, error) => log.error(`handler ${channel} failed`, error));
    return { dispatch, events, ledger, local, listener, close };
  } catch (error) {
    await close();
    throw error;
  }
}
