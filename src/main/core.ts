// The composition root shared by the Electron entry and the web-mode entry: it opens the ledger,
// starts the embedded gateway emulator and the notification listener, builds the services with
// their dependencies, and exposes one dispatcher and one event bus.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { AppInfo } from '../shared/contract';
import { startEmulator } from '../emulator/index';
import { createDispatcher, type Dispatch } from './ipc/dispatcher';
import { createHandlers } from './ipc/handlers/index';
import { randomIds, systemClock } from './gateway/runtime';
import { openCluster } from './ledger/cluster';
import { openLedger, type Ledger } from './ledger/connection';
import { pushRelayStore } from './ledger/push-relay-store';
import { createRepositories } from './ledger/repositories/index';
import type { NotificationSummaryRecord } from './ledger/repositories/notifications';
import { notificationLink, startListener, type Listener } from './listener/index';
import { bindRemembered, movableListener, type ListenerAddress } from './listener/movable';
import type { Logger } from './logger';
import { ledgerFile } from './platform/paths';
import { AppInfoService } from './services/app-info';
import { CredentialService } from './services/credential-service';
import { EventBus } from './services/event-bus';
import { GatewaySessions, type GatewaySessionsDeps } from './services/gateway-sessions';
import { localGatewayFrom, type LocalGateway } from './services/local-gateway';
import { NotificationApplier } from './services/notification-applier';
import { EvidenceService } from './services/evidence/evidence-service';
import { LedgerViews } from './services/ledger-views/ledger-views';
import { TransactionsCsvExport } from './services/ledger-views/transactions-csv';
import { NotificationInspector, notificationSummary } from './services/ledger-views/notification-inspector';
import { ReconciliationService } from './services/reconciliation/reconciliation-service';
import { SavedViewsService } from './services/saved-views/saved-views-service';
import { Sweeper } from './services/reconciliation/sweep';
import { GATEWAY_READ_LIMIT, ReadRateLimiter, type RateLimit } from './services/verification/rate-limiter';
import { StatusReader } from './services/verification/status-reader';
import { StatusPoller, type PollTimings } from './services/verification/status-poller';
import { ReviewGate } from './services/payments/review-gate';
import { Verifier, type VerifierTimings } from './services/verification/verifier';
import { ProfileService } from './services/profile-service';
import type { SecretStore } from './services/secret-store';
import { SettingsService } from './services/settings-service';
import { ListenerSettings } from './services/listener-settings';
import { NotificationRetention } from './services/notification-retention';
import { createPaymentServices, publishPush, publishTransactionChanged } from './services/payments/index';
import { LimitService } from './services/limits/limit-service';
import { BatchService, type BatchServiceDeps } from './services/payouts-batch/batch-service';
import { ApprovalDigest } from './services/approvals/approval-digest';
import { ApprovalPoliciesService } from './services/approvals/approval-policies';
import { ApprovalService, type ApprovalServiceDeps } from './services/approvals/approval-service';
import { Authorizer } from './services/team/authorizer';
import { currentPerson } from './services/team/request-context';
import { ServerSecretStore } from './services/team/server-secret-store';
import { deskTeamChannels, serverTeamChannels } from './services/team/team-channels';
import { TeamLink } from './services/team/team-link';
import { TeamService, type TeamServiceDeps } from './services/team/team-service';
import { InstancePresence, instanceIdIn, type InstanceTimings } from './services/scale-out/instance';
import { PushRelay } from './services/scale-out/push-relay';
import { Takeover } from './services/scale-out/takeover';

export interface CoreOptions {
  mode: AppInfo['mode'];
  version: string;
  dataDir: string;
  /** The PostgreSQL ledger (postgres://…); undefined: the SQLite ledger in the data directory. */
  database?: string | undefined;
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
}

export interface Core {
  dispatch: Dispatch;
  events: EventBus;
  ledger: Ledger;
  local: LocalGateway;
  listener: Listener;
  /** A team server's people and its guard (undefined on a desk). */
  team?: { service: TeamService; authorizer: Authorizer; secrets: ServerSecretStore };
  close(): Promise<void>;
}

export async function createCore(options: CoreOptions): Promise<Core> {
  const { mode, version, dataDir, log, now = () => new Date(), trace = () => {} } = options;
  trace('core: opening the ledger');
  // Opened first: a ledger that cannot be opened (a bad address, a refused connection, a wrong
  // password, a missing database) leaves nothing behind, not even the data directory. SQLite's
  // open makes the directory of its file itself.
  const ledger = await openLedger(options.database ? { url: options.database } : { file: ledgerFile(dataDir) }, { now });
  trace('core: ledger open');
  const closers: (() => Promise<void> | void)[] = [() => ledger.close()];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer();
  };

  try {
    // The emulator's state (and, on SQLite, the ledger) lives here, whichever engine holds the ledger.
    mkdirSync(dataDir, { recursive: true });
    // This process as one instance of the ledger's workers: what it sends and runs names it.
    const instanceId = instanceIdIn(dataDir);
    // On a team server the audit log records the person whose request is served.
    const repos = createRepositories(ledger, now, { instance: instanceId, ...(options.team ? { person: () => currentPerson()?.username } : {}) });
    const cluster = openCluster(ledger, { log, retryMs: options.scaleOut?.leaderRetryMs });
    closers.push(() => cluster.close());
    const presence = new InstancePresence({ repos, id: instanceId, shared: ledger.engine === 'postgres', sessions: cluster, now, log, timings: options.scaleOut });
    await presence.start();
    closers.push(() => presence.close());
    const serverSecrets = options.team ? new ServerSecretStore(repos.serverSecrets, options.team.key) : undefined;
    const secrets = serverSecrets ?? options.secrets;
    if (!secrets) throw new Error('createCore needs a secret store (the OS keychain) or a team server envelope key');
    // What the screens listen to. A desk linked to a team server shows the server's pushes there
    // instead of its own (TeamLink); its services keep publishing on their own bus.
    const screens = options.events ?? new EventBus();
    const link = options.team ? undefined : new TeamLink({ secrets, settings: repos.settings, events: screens, log });
    // A team server on PostgreSQL shows every instance's pushes: its own go through the ledger too.
    const relayStore = options.team ? pushRelayStore(ledger, now, instanceId) : null;
    const events = link || relayStore ? new EventBus() : screens;
    if (link) {
      events.subscribe((channel, payload, audience) => {
        if (!link.active) screens.publish(channel, payload, audience);
      });
      closers.push(() => link.close());
    }
    const relay = relayStore ? new PushRelay({ store: relayStore, from: events, to: screens, sessionsEnded: (ids) => options.team?.onSessionsEnded?.(ids), now, log }) : undefined;
    if (relay) {
      await relay.start();
      closers.push(() => relay.close());
    }
    const team = options.team
      ? new TeamService({
          ...options.team,
          repos,
          events,
          now,
          onSessionsEnded: (ids) => {
            options.team?.onSessionsEnded?.(ids);
            relay?.endSessions(ids);
          },
        })
      : undefined;
    const settings = new SettingsService(repos.settings, events, team ? () => currentPerson()?.id : undefined);

    const local = options.localGateway ?? localGatewayFrom(await startEmulator({ quiet: true, ...options.emulator, dataFile: path.join(dataDir, 'emulator.sqlite') }));
    if (!options.localGateway) closers.push(() => local.close());
    trace('core: emulator started');

    // A summary, read without the body: pushes are kept in web mode's log (the last 1,000).
    const announceNotification = (stored: NotificationSummaryRecord) => {
      events.publish('notifications:notification-changed', notificationSummary(stored));
      return stored;
    };
    const publishNotification = async (id: number) => {
      const stored = await repos.notifications.summaryById(id);
      return stored && announceNotification(stored);
    };
    // Malformed and orphan notifications are kept within a per-profile cap and age; a pile-up runs the rule soon.
    const retention = new NotificationRetention({ repos, now, log, cluster });
    closers.push(() => retention.close());
    const noteUnclaimed = (stored: Awaited<ReturnType<typeof publishNotification>>) => {
      if (stored && (stored.outcome === 'malformed' || stored.outcome === 'orphan')) retention.noteStored(stored.profileId, stored.bodySize);
    };
    // What it applies before the verifier subscribes (recoverPending) is found by verifier.recover().
    const applier = new NotificationApplier({ repos, log });
    // The listener can be moved from Settings while the app runs (listener/movable.ts).
    const bindListener = (address: ListenerAddress) =>
      startListener({
        db: ledger,
        ...address,
        ...(options.listener?.tls ? { tls: options.listener.tls } : {}),
        // A malformed one is never applied, so it is announced here (the webhook inspector lists it live).
        onStored: (id, outcome) => {
          if (outcome === 'malformed') void publishNotification(id).then(noteUnclaimed, (error: unknown) => log.error(`announcing notification ${id} failed`, error));
          else applier.enqueue(id);
        },
        log,
      });
    const remembered = { host: (await settings.listenerHost()) ?? '127.0.0.1', port: await settings.listenerPort() };
    const listener = movableListener(
      options.listener ? await bindListener({ host: options.listener.host ?? '127.0.0.1', port: options.listener.port ?? 0 }) : await bindRemembered(bindListener, remembered, (message) => log.warn(message)),
      bindListener,
    );
    closers.push(() => listener.close());
    await settings.rememberListenerPort(listener.port);
    trace('core: listener bound');
    await applier.recoverPending();
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
      // On a team server each person works on a profile of their own choice.
      ...(team ? { choice: { current: () => currentPerson()?.activeProfileId, choose: (id: string) => team.chooseProfile(id) } } : {}),
    });
    await profiles.ensureLocalProfile();
    const listenerSettings = new ListenerSettings({ listener, settings, audit: repos.audit, events, onMoved: () => profiles.publish() });
    const gateways = new GatewaySessions({ credentials, attempts: repos.attempts, ...options.gateway });
    const limits = new LimitService({ repos, profiles, now, publish: (list) => events.publish('limits:limits-changed', list) });
    // Every status read (the verifier's, the sweep's, a person's) goes through one reader and one
    // client-side rate limit, so a Retry-After the gateway asked for holds them all.
    const readLimiter = new ReadRateLimiter(options.verification?.rateLimit ?? GATEWAY_READ_LIMIT);
    closers.push(() => readLimiter.close());
    const reader = new StatusReader({ repos, sessions: gateways, limiter: readLimiter, now, maxRateLimitRetries: options.verification?.maxRateLimitRetries });
    // A live payout, batch or resume is sent only with the proof of its review (issue 13).
    const reviews = new ReviewGate({ clock: systemClock, ids: randomIds });
    // What needs a second step before it is sent: another person's approval on a team server, the typed amount on a desk.
    const approvalPolicies = new ApprovalPoliciesService({ repos, team: team !== undefined, publish: (list) => events.publish('approvals:policies-changed', list) });
    // Bound below, once the verifier exists: transactions whose notifications cannot arrive are polled.
    let pollStatus: (subject: 'payin' | 'payout', rowId: number) => Promise<void> = async () => {};
    const payments = createPaymentServices({
      repos,
      profiles,
      credentials,
      gateways,
      applier,
      events,
      notificationUrl: (profile) => notificationLink(profile, listener),
      clock: systemClock,
      ids: randomIds,
      log,
      reviews,
      checkLimits: (profile, currency, amount) => limits.check(profile, currency, amount),
      approvals: approvalPolicies,
      pollStatus: (subject, rowId) => pollStatus(subject, rowId),
      payoutGuard: (profile, body) => limits.guard(profile, body),
      reader,
      notificationChanged: publishNotification,
    });
    // Before anything is sent: attempts a crash left in "sending" become "unknown" (never "failed"):
    // this instance's from before its restart, and any other dead instance's, never a live one's.
    await payments.attempts.recoverInterrupted(await presence.othersAlive());
    trace('core: attempts.recoverInterrupted done');
    // A crash between recording a create answer and applying it left a row without the gateway's id
    // and status: apply the stored answer again (a settled attempt is answered from the ledger; nothing is sent).
    for (const key of await repos.attempts.succeededWithoutAnswer()) {
      const settled = await payments.attempts.settle({ key }).catch((error: unknown) => log.error(`re-applying the answer of attempt ${key} failed`, error));
      if (settled) log.info(`re-applied the recorded answer of attempt ${key}`);
    }
    trace('core: succeededWithoutAnswer done');
    const approvals = new ApprovalService({
      repos,
      policies: approvalPolicies,
      payouts: payments.payouts,
      batches: () => batches,
      reviews,
      // Only a team server has people to approve; its digest key is sealed with its other credentials.
      ...(serverSecrets ? { digest: new ApprovalDigest(serverSecrets) } : {}),
      events,
      now,
      person: () => currentPerson(),
      log,
      ...options.approvals,
    });
    // Approvals are a team server's: expired when due, audited and pushed to the screens that list them.
    if (serverSecrets) {
      await approvals.watchExpiry();
      closers.push(() => approvals.unwatchExpiry());
    }
    const batches: BatchService = new BatchService({
      repos,
      profiles,
      payouts: payments.payouts,
      attempts: payments.attempts,
      approvals: approvals.batchApprovals(),
      reviews,
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
      applier,
      reader,
      repos,
      log,
      timings: options.verification?.timings,
      onVerified: ({ subject, rowId, read }) => {
        for (const id of read?.contradictedNotifications ?? []) void publishNotification(id).catch((error: unknown) => log.error(`announcing notification ${id} failed`, error));
        void publishTransactionChanged(events, repos, { subject, rowId }).catch((error: unknown) => log.error(`announcing ${subject} ${rowId} failed`, error));
        // A background read that found a pay-in whose create answer was lost settles its attempt too.
        if (subject === 'payin' && read?.answer) void payments.payins.settleAttemptByRead(rowId, read.answer).catch((error: unknown) => log.error(`settling the attempt of pay-in ${rowId} by its status read failed`, error));
      },
    });
    closers.push(() => verifier.close());
    applier.subscribe((result) => {
      noteUnclaimed(announceNotification(result.summary));
      for (const push of result.pushes) publishPush(events, push);
    });
    const poller = new StatusPoller({ verifier, repos, now, log, timings: options.verification?.polling });
    closers.push(() => poller.close());
    pollStatus = (subject, rowId) => poller.track(subject, rowId);
    await applier.retryOrphans();
    trace('core: applier.retryOrphans done');
    // After retryOrphans: an orphan whose transaction is known by now is applied, not pruned.
    await retention.start();
    trace('core: retention.start done');
    // One instance at a time picks up the background work no one may be doing (unverified claims,
    // polled rows, unknown outcomes a person is not needed for), and takes over dead instances.
    const takeover = new Takeover({
      presence,
      attempts: payments.attempts,
      batches,
      log,
      watch: ledger.engine === 'postgres',
      pickUp: async () => {
        await verifier.recover();
        await poller.recover();
        trace('core: verifier.recover done');
        void payments.settler.settleAll().catch((error: unknown) => log.error('settling unknown outcomes failed', error));
      },
    });
    closers.push(() => takeover.close());
    await cluster.lead('recovery', { lead: () => takeover.lead(), lost: () => takeover.lost() });
    const views = new LedgerViews(repos, now);
    const sweeper = new Sweeper({
      repos,
      verifier,
      applier,
      now,
      log,
      publish: (state) => events.publish('reconciliation:sweep-changed', state),
      settleUnknown: (settle) => payments.settler.settleAll(settle),
      cluster,
    });
    closers.push(() => sweeper.close());
    const reconciliation = new ReconciliationService({ repos, now, sweeper });
    const handlers = createHandlers({
      appInfo: new AppInfoService({ version, mode, dataDir, ledger, secrets, profiles: { active: () => profiles.active().catch(() => undefined) } }),
      team: team ? serverTeamChannels(team) : deskTeamChannels(link),
      settings,
      profiles,
      listenerSettings,
      retention,
      payments,
      views,
      savedViews: new SavedViewsService(repos, now),
      transactionsCsv: new TransactionsCsvExport({ repos, now }),
      inspector: new NotificationInspector({ repos, applier, now, publish: publishNotification }),
      reconciliation,
      evidence: new EvidenceService({ repos, views, now, version }),
      batches,
      limits,
      approvals,
      approvalPolicies,
    });
    const ownDispatch = createDispatcher(handlers, (channel, error) => log.error(`handler ${channel} failed`, error));
    const dispatch = link ? link.dispatch(ownDispatch) : ownDispatch;
    // Batches that were running when this instance stopped go on (their open items under their own keys).
    await batches.recover(await presence.othersAlive());
    trace('core: batches.recover done');
    closers.push(() => payments.settler.close());
    const teamParts = team && serverSecrets ? { service: team, secrets: serverSecrets, authorizer: new Authorizer({ profiles: repos.profiles, policy: () => team.policy() }) } : undefined;
    // A desk signed in to a team server before works on it again, if the server still knows its session.
    await link?.restore();
    return { dispatch, events: screens, ledger, local, listener, ...(teamParts ? { team: teamParts } : {}), close };
  } catch (error) {
    await close();
    throw error;
  }
}
