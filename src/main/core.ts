// The composition root shared by the Electron entry and the web-mode entry: it opens the ledger,
// starts the embedded gateway emulator and the notification listener, builds the services with
// their dependencies, and exposes one dispatcher and one event bus.
import path from 'node:path';
import type { AppInfo } from '../shared/contract';
import { startEmulator } from '../emulator/index';
import { createDispatcher, type Dispatch, type Handlers } from './ipc/dispatcher';
import { appHandlers } from './ipc/app-handlers';
import { listenerHandlers } from './ipc/listener-handlers';
import { profileHandlers } from './ipc/profile-handlers';
import { ledgerHandlers, notificationHandlers, reconciliationHandlers } from './ipc/ledger-handlers';
import { paymentHandlers } from './ipc/payment-handlers';
import { batchHandlers, limitHandlers } from './ipc/batch-handlers';
import { viewHandlers } from './ipc/view-handlers';
import { randomIds, systemClock } from './gateway/runtime';
import { openLedger, schemaVersion, type Ledger } from './ledger/connection';
import { createRepositories } from './ledger/repositories/index';
import { notificationLink, startListener, type Listener } from './listener/index';
import { bindRemembered, movableListener, type ListenerAddress } from './listener/movable';
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
import { SavedViewsService } from './services/saved-views/saved-views-service';
import { Sweeper } from './services/reconciliation/sweep';
import { GATEWAY_READ_LIMIT, ReadRateLimiter, type RateLimit } from './services/verification/rate-limiter';
import { StatusReader } from './services/verification/status-reader';
import { Verifier, type VerifierTimings } from './services/verification/verifier';
import { environmentLabels, ProfileService } from './services/profile-service';
import type { SecretStore } from './services/secret-store';
import { SettingsService } from './services/settings-service';
import { ListenerSettings } from './services/listener-settings';
import { changesFromNotification, createPaymentServices, publishTransactionChanged } from './services/payments/index';
import { LimitService } from './services/limits/limit-service';
import { BatchService, type BatchServiceDeps } from './services/payouts-batch/batch-service';

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
  /**
   * An emulator that is already running, used instead of starting the embedded one and left
   * running by close() (crash tests: the gateway must outlive an app killed with SIGKILL).
   */
  localGateway?: LocalGateway;
  /** Gateway call limits: per-call timeout and the create-call retry policy (tests make them short). */
  gateway?: Pick<GatewaySessionsDeps, 'timeoutMs' | 'runner'>;
  /** Payout batches: items in flight at once and the progress push interval (tests). */
  batches?: Pick<BatchServiceDeps, 'concurrency' | 'progressIntervalMs'>;
  /** Verification of notifications by status reads: client-side rate limit and recheck timings (tests make them short). */
  verification?: { rateLimit?: RateLimit; timings?: Partial<VerifierTimings>; maxRateLimitRetries?: number };
  /** The bus to publish pushes on; web mode makes it before the core, so its event streams can open early. */
  events?: EventBus;
  /** Marks start-up phases (web mode's PAYDESK_TRACE=1 prints them with their time). */
  trace?: (phase: string) => void;
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
  const { mode, version, dataDir, secrets, log, now = () => new Date(), trace = () => {} } = options;
  const file = ledgerFile(dataDir);
  trace('core: opening the ledger');
  const ledger = openLedger({ file, now });
  trace('core: ledger open');
  const closers: (() => Promise<void> | void)[] = [() => {
    ledger.close();
  }];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer();
  };

  try {
    const events = options.events ?? new EventBus();
    const repos = createRepositories(ledger, now);
    const settings = new SettingsService(ledger, events, now);

    const local = options.localGateway ?? localGatewayFrom(await startEmulator({ quiet: true, ...options.emulator, dataFile: path.join(dataDir, 'emulator.sqlite') }));
    if (!options.localGateway) closers.push(() => local.close());
    trace('core: emulator started');

    const publishNotification = (id: number) => {
      const stored = repos.notifications.byId(id);
      if (stored) events.publish('notifications:notification-changed', notificationView(stored));
    };
    // Bound below, once the verifier exists; what is applied before (recoverPending) is found by verifier.recover().
    let onApplied: (result: AppliedNotification) => void = () => {};
    const applier = new NotificationApplier({ db: ledger, now, log, onApplied: (result) => onApplied(result) });
    // The listener can be moved from Settings while the app runs (listener/movable.ts).
    const bindListener = (address: ListenerAddress) =>
      startListener({
        db: ledger,
        ...address,
        // A malformed one is never applied, so it is announced here (the webhook inspector lists it live).
        onStored: (id, outcome) => (outcome === 'malformed' ? publishNotification(id) : applier.enqueue(id)),
        log,
      });
    const remembered = { host: settings.listenerHost() ?? '127.0.0.1', port: settings.listenerPort() };
    const listener = movableListener(
      options.listener ? await bindListener({ host: options.listener.host ?? '127.0.0.1', port: options.listener.port ?? 0 }) : await bindRemembered(bindListener, remembered, (message) => log.warn(message)),
      bindListener,
    );
    closers.push(() => listener.close());
    settings.rememberListenerPort(listener.port);
    trace('core: listener bound');
    applier.recoverPending();
    trace('core: applier.recoverPending done');

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
    const listenerSettings = new ListenerSettings({ listener, settings, audit: repos.audit, events, onMoved: () => profiles.publish() });
    const gateways = new GatewaySessions({ credentials, attempts: repos.attempts, ...options.gateway });
    const limits = new LimitService({ db: ledger, audit: repos.audit, now, publish: (list) => events.publish('limits:limits-changed', list) });
    // Every status read (the verifier's, the sweep's, a person's) goes through one reader and one
    // client-side rate limit, so a Retry-After the gateway asked for holds them all.
    const readLimiter = new ReadRateLimiter(options.verification?.rateLimit ?? GATEWAY_READ_LIMIT);
    closers.push(() => readLimiter.close());
    const reader = new StatusReader({ db: ledger, repos, sessions: gateways, limiter: readLimiter, now, maxRateLimitRetries: options.verification?.maxRateLimitRetries });
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
      payoutGuard: (profile, body) => limits.guard(profile, body),
      reader,
      notificationChanged: publishNotification,
    });
    // Before anything is sent: attempts a crash left in "sending" become "unknown" (never "failed").
    payments.attempts.recoverInterrupted();
    trace('core: attempts.recoverInterrupted done');
    // A crash between recording a create answer and applying it left a row without the gateway's id
    // and status: apply the stored answer again (a settled attempt is answered from the ledger; nothing is sent).
    for (const key of repos.attempts.succeededWithoutAnswer()) {
      const settled = await payments.attempts.resume({ key }).catch((error: unknown) => log.error(`re-applying the answer of attempt ${key} failed`, error));
      if (settled) log.info(`re-applied the recorded answer of attempt ${key}`);
    }
    trace('core: succeededWithoutAnswer done');
    const batches = new BatchService({
      db: ledger,
      audit: repos.audit,
      payoutRows: repos.payouts,
      profiles,
      payouts: payments.payouts,
      attempts: payments.attempts,
      events,
      notificationUrl: (profile) => notificationLink(profile, listener),
      ids: randomIds,
      now,
      log,
      ...options.batches,
    });
    closers.push(() => batches.close());

    // Notifications are claims: each one that claims news is confirmed by a status read (issue 5).
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
    trace('core: applier.retryOrphans done');
    verifier.recover();
    trace('core: verifier.recover done');
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
      ...listenerHandlers({ listener: listenerSettings }),
      ...paymentHandlers(payments),
      ...ledgerHandlers({ views }),
      ...viewHandlers({ savedViews: new SavedViewsService(ledger, now), repos, now }),
      ...notificationHandlers({ inspector, publish: publishNotification }),
      ...reconciliationHandlers({ reconciliation, evidence }),
      ...batchHandlers({ batches }),
      ...limitHandlers({ limits, profiles }),
    };
    const dispatch = createDispatcher(handlers, (channel, error) => log.error(`handler ${channel} failed`, error));
    // Batches that were running when the app stopped go on (their open items under their own keys).
    batches.recover();
    trace('core: batches.recover done');
    return { dispatch, events, ledger, local, listener, close };
  } catch (error) {
    await close();
    throw error;
  }
}
