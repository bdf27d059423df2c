// The core's services, wired: each built once with what it depends on, in an order where everything
// it needs exists already. Only wiring: no awaits, no cycles, nothing listens, runs or is bound
// here (the start-up steps do that, startup.ts), so two services that call each other meet through
// a port (BatchStarter, the batches' approvals) instead of a late binding.
// A new service: build it below from what it needs, hand it to createHandlers, and, if it runs
// anything (a timer, a subscription, a socket), give it a step in startup.ts.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { startEmulator } from '../../emulator/index';
import type { CoreOptions } from '../core';
import { randomIds, systemClock } from '../gateway/runtime';
import { createDispatcher, type Dispatch } from '../ipc/dispatcher';
import { createHandlers } from '../ipc/handlers/index';
import { openCluster, type Cluster } from '../ledger/cluster';
import { migrationsAfter, poolUsage, type Ledger } from '../ledger/connection';
import { pushRelayStore } from '../ledger/push-relay-store';
import { createRepositories, type Repositories } from '../ledger/repositories/index';
import type { NotificationSummaryRecord } from '../ledger/repositories/notifications';
import type { TransactionKind } from '../ledger/status';
import { notificationLink, startListener } from '../listener/index';
import { movableListener, type ListenerAddress, type MovableListener } from '../listener/movable';
import { AppInfoService } from '../services/app-info';
import { ApprovalDigest } from '../services/approvals/approval-digest';
import { ApprovalPoliciesService } from '../services/approvals/approval-policies';
import { ApprovalRecords, batchApprovals } from '../services/approvals/approval-records';
import { ApprovalService } from '../services/approvals/approval-service';
import { CredentialService } from '../services/credential-service';
import { EventBus } from '../services/event-bus';
import { EvidenceService } from '../services/evidence/evidence-service';
import { GatewaySessions } from '../services/gateway-sessions';
import { Health } from '../services/health';
import { Metrics } from '../services/metrics';
import { NotificationInspector, notificationSummary } from '../services/ledger-views/notification-inspector';
import { LedgerViews } from '../services/ledger-views/ledger-views';
import { TransactionsCsvExport } from '../services/ledger-views/transactions-csv';
import { LimitService } from '../services/limits/limit-service';
import { ListenerSettings } from '../services/listener-settings';
import { embeddedLocalGateway, type EmbeddedLocalGateway, type LocalGateway } from '../services/local-gateway';
import { NotificationApplier, type AppliedNotification } from '../services/notification-applier';
import { NotificationRetention } from '../services/notification-retention';
import { chatChannel, emailChannel } from '../services/notices/channels';
import { NoticeSender } from '../services/notices/notice-sender';
import { LedgerNotices, Notices } from '../services/notices/notices';
import { Watches } from '../services/notices/watches';
import { DuplicateGuard } from '../services/payments/duplicate-guard';
import { createPaymentServices, publishPush, publishTransactionChanged, type PaymentServices } from '../services/payments/index';
import { ReviewGate } from '../services/payments/review-gate';
import { BatchService } from '../services/payouts-batch/batch-service';
import { ProfileService } from '../services/profile-service';
import { ReconciliationService } from '../services/reconciliation/reconciliation-service';
import { Sweeper } from '../services/reconciliation/sweep';
import { StatementsService } from '../services/statements/statements-service';
import { SavedViewsService } from '../services/saved-views/saved-views-service';
import { Drain } from '../services/scale-out/drain';
import { InstancePresence } from '../services/scale-out/instance';
import { PushRelay } from '../services/scale-out/push-relay';
import { SchemaWatch } from '../services/scale-out/schema-watch';
import { Takeover } from '../services/scale-out/takeover';
import { SettingsService } from '../services/settings-service';
import { Authorizer } from '../services/team/authorizer';
import { currentPerson } from '../services/team/request-context';
import { ServerSecretStore } from '../services/team/server-secret-store';
import { deskTeamChannels, serverTeamChannels } from '../services/team/team-channels';
import { TeamLink } from '../services/team/team-link';
import { TeamService } from '../services/team/team-service';
import { GATEWAY_READ_LIMIT, ReadRateLimiter } from '../services/verification/rate-limiter';
import { ReferenceReads } from '../services/verification/reference-reads';
import { StatusPoller } from '../services/verification/status-poller';
import { StatusReader } from '../services/verification/status-reader';
import { Verifier } from '../services/verification/verifier';

/**
 * Where payments ask for a transaction whose notifications cannot arrive to be polled: the poller,
 * once the "status polling" step connects it. Asked before (start-up's own settling), nothing is
 * polled; a row left so is found by the poller's recover() when the recovery is led.
 */
export class StatusPolls {
  private poller: Pick<StatusPoller, 'track'> | undefined;

  connect(poller: Pick<StatusPoller, 'track'>): void {
    this.poller = poller;
  }

  async track(subject: TransactionKind, rowId: number): Promise<void> {
    await this.poller?.track(subject, rowId);
  }
}

/** The wired core: what the start-up steps start and close, and what the core hands out. */
export interface CoreServices {
  ledger: Ledger;
  repos: Repositories;
  cluster: Cluster;
  presence: InstancePresence;
  /** What the services publish on. */
  events: EventBus;
  /** What the screens listen to: `events`, or a desk's linked server's pushes, or every instance's (PushRelay). */
  screens: EventBus;
  /** A desk's link to a team server (undefined on a team server). */
  link: TeamLink | undefined;
  relay: PushRelay | undefined;
  settings: SettingsService;
  /** The gateway emulator the local profile uses: the embedded one, or one already running (CoreOptions.localGateway). */
  local: LocalGateway;
  /** The embedded emulator, started (and stopped) by a step; undefined when one already running is used. */
  emulator: EmbeddedLocalGateway | undefined;
  retention: NotificationRetention;
  applier: NotificationApplier;
  /** Pushes an applied notification's summary and its transaction's changes. */
  announceApplied: (result: AppliedNotification) => void;
  listener: MovableListener;
  bindListener: (address: ListenerAddress) => ReturnType<typeof startListener>;
  profiles: ProfileService;
  readLimiter: ReadRateLimiter;
  payments: PaymentServices;
  polls: StatusPolls;
  approvals: ApprovalService;
  batches: BatchService;
  verifier: Verifier;
  poller: StatusPoller;
  takeover: Takeover;
  sweeper: Sweeper;
  statements: StatementsService;
  /** What Paydesk tells people: their inboxes and the announcer (docs/notifications.md). */
  notices: Notices;
  /** A team server's sender of e-mail and chat notices (undefined on a desk). */
  sender: NoticeSender | undefined;
  /** The time-based watches (reminders, escalations, silent profiles), run where the `watches` leadership is held. */
  watches: Watches;
  dispatch: Dispatch;
  /** Refuses every call once a newer Paydesk migrated the shared ledger past this one (docs/team.md, "Upgrade"). */
  drain: Drain;
  /** On a shared (PostgreSQL) ledger: the watch for such a migration. */
  schemaWatch: SchemaWatch | undefined;
  /** What /readyz answers on the app and notification addresses; told when this instance stops. */
  health: Health;
  /** What GET /metrics answers (services/metrics.ts): this instance's registry. */
  metrics: Metrics;
  /** A team server's people and its guard (undefined on a desk). */
  team: { service: TeamService; authorizer: Authorizer; secrets: ServerSecretStore } | undefined;
}

/** `newestMigration`: the newest migration this build knows on the ledger's engine (the schema watch's and the readiness check's yardstick). */
export function wireServices(ledger: Ledger, instanceId: string, options: CoreOptions, newestMigration: number): CoreServices {
  const { mode, version, dataDir, log, now = () => new Date(), trace = () => {} } = options;
  // On a team server the audit log records the person whose request is served.
  // What the ledger records that someone must hear of is told in the same transaction (services/notices).
  const told = new LedgerNotices();
  const repos = createRepositories(ledger, now, { instance: instanceId, events: told, ...(options.team ? { person: () => currentPerson()?.username } : {}) });
  const cluster = openCluster(ledger, { log, retryMs: options.scaleOut?.leaderRetryMs });
  const presence = new InstancePresence({ repos, id: instanceId, shared: ledger.engine === 'postgres', sessions: cluster, now, log, timings: options.scaleOut });
  const drain = new Drain(log);
  const metrics = options.metrics ?? new Metrics();
  const health = new Health({ ledger, cluster, instanceId, newestMigration, draining: () => drain.reason });
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
  const relay = relayStore ? new PushRelay({ store: relayStore, from: events, to: screens, sessionsEnded: (ids) => options.team?.onSessionsEnded?.(ids), now, log }) : undefined;
  // Each instance announces new notices to its own screens (a team server's pushes are not relayed
  // again); a desk's go through its own bus, shown while it is not linked to a team server.
  // E-mail and chat are a team server's: its outbox is drained by one instance at a time (a step).
  const { smtp, sender: senderTimings, watchEveryMs, ...noticeOptions } = options.notices ?? {};
  const channels = options.team ? { chat: chatChannel(), ...(smtp ? { email: emailChannel(smtp) } : {}) } : {};
  const sender = options.team ? new NoticeSender({ repos, channels, publicUrl: options.team.serverUrl, now, log, timings: senderTimings }) : undefined;
  const notices = new Notices({ repos, team: options.team !== undefined, person: () => currentPerson(), screens: options.team ? screens : events, log, configured: (channel) => channel in channels, onNew: () => void sender?.runRound(), ...noticeOptions });
  told.connect(notices);
  const team = options.team
    ? new TeamService({
        ...options.team,
        repos,
        events,
        notices,
        now,
        onSessionsEnded: (ids) => {
          options.team?.onSessionsEnded?.(ids);
          relay?.endSessions(ids);
        },
      })
    : undefined;
  const watches = new Watches({ repos, notices, now, log, everyMs: watchEveryMs });
  const settings = new SettingsService(repos.settings, events, team ? () => currentPerson()?.id : undefined);
  const emulator = options.localGateway ? undefined : embeddedLocalGateway(() => startEmulator({ quiet: true, ...options.emulator, dataFile: path.join(dataDir, 'emulator.sqlite') }));
  const local = options.localGateway ?? emulator!;

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
  const noteUnclaimed = (stored: Awaited<ReturnType<typeof publishNotification>>) => {
    if (stored && (stored.outcome === 'malformed' || stored.outcome === 'orphan')) retention.noteStored(stored.profileId, stored.bodySize);
  };
  const applier = new NotificationApplier({ repos, log });
  const announceApplied = (result: AppliedNotification) => {
    metrics.notificationApplied(result.summary.event, result.summary.outcome);
    noteUnclaimed(announceNotification(result.summary));
    for (const push of result.pushes) publishPush(events, push);
  };
  // The listener can be moved from Settings while the app runs (listener/movable.ts).
  const bindListener = (address: ListenerAddress) =>
    startListener({
      db: ledger,
      ...address,
      ...(options.listener?.tls ? { tls: options.listener.tls } : {}),
      health,
      onAnswered: (event, status, seconds) => metrics.notificationAnswered(event, status, seconds),
      // A malformed one is never applied, so it is announced here (the webhook inspector lists it live).
      onStored: (id, outcome) => {
        if (outcome === 'malformed') void publishNotification(id).then(noteUnclaimed, (error: unknown) => log.error(`announcing notification ${id} failed`, error));
        else applier.enqueue(id);
      },
      log,
    });
  const listener = movableListener(bindListener);
  const notificationUrl = (profile: Parameters<typeof notificationLink>[0]) => notificationLink(profile, listener);

  const credentials = new CredentialService({ secrets, profiles: repos.profiles, audit: repos.audit, local });
  const profiles = new ProfileService({
    profiles: repos.profiles,
    audit: repos.audit,
    transaction: repos.transaction,
    credentials,
    events,
    local,
    notificationUrl,
    onPathsChanged: () => listener.refreshProfiles(),
    // On a team server each person works on a profile of their own choice.
    ...(team ? { choice: { current: () => currentPerson()?.activeProfileId, choose: (id: string) => team.chooseProfile(id) } } : {}),
  });
  const listenerSettings = new ListenerSettings({ listener, settings, audit: repos.audit, events, onMoved: () => profiles.publish() });
  // Every gateway call (creates and status reads) is counted and timed by endpoint and outcome.
  const gateways = new GatewaySessions({ credentials, attempts: repos.attempts, ...options.gateway, fetch: metrics.gatewayFetch(options.gateway?.fetch ?? globalThis.fetch) });
  const duplicates = new DuplicateGuard({ repos, now });
  const limits = new LimitService({ repos, profiles, duplicates, now, publish: (list) => events.publish('limits:limits-changed', list) });
  // Every status read (the verifier's, the sweep's, a person's) goes through one reader and one
  // client-side rate limit, so a Retry-After the gateway asked for holds them all.
  const readLimiter = new ReadRateLimiter(options.verification?.rateLimit ?? GATEWAY_READ_LIMIT);
  // What a gateway said of the key it reads payouts by (merchantReference or only payout_id), kept in the ledger.
  const referenceReads = new ReferenceReads(repos);
  const reader = new StatusReader({ repos, sessions: gateways, limiter: readLimiter, now, maxRateLimitRetries: options.verification?.maxRateLimitRetries, referenceReads, onRead: (result) => metrics.statusRead(result) });
  // A live payout, batch or resume is sent only with the proof of its review, kept in the ledger:
  // a team server's instances key its digests alike (a key derived from their envelope key).
  const reviews = new ReviewGate({ reviews: repos.reviews, key: options.team ? options.team.key.derive('send reviews') : randomBytes(32), clock: systemClock, ids: randomIds });
  // What needs a second step before it is sent: another person's approval on a team server, the typed amount on a desk.
  const approvalPolicies = new ApprovalPoliciesService({ repos, team: team !== undefined, publish: (list) => events.publish('approvals:policies-changed', list) });
  // Transactions whose notifications cannot arrive are polled (StatusPolls).
  const polls = new StatusPolls();
  const payments = createPaymentServices({
    repos,
    profiles,
    credentials,
    gateways,
    applier,
    events,
    notificationUrl,
    clock: systemClock,
    ids: randomIds,
    log,
    reviews,
    checkLimits: (profile, currency, amount) => limits.check(profile, currency, amount),
    duplicates,
    approvals: approvalPolicies,
    pollStatus: (subject, rowId) => polls.track(subject, rowId),
    payoutGuard: (profile, body) => limits.guard(profile, body),
    reader,
    referenceReads,
    notificationChanged: publishNotification,
    onCreated: (kind, state) => metrics.transactionCreated(kind, state),
  });
  const approvalRecords = new ApprovalRecords({ repos, events, notices });
  const batches = new BatchService({
    repos,
    profiles,
    notices,
    duplicates,
    payouts: payments.payouts,
    attempts: payments.attempts,
    approvals: batchApprovals(approvalPolicies, approvalRecords),
    reviews,
    events,
    notificationUrl,
    ids: randomIds,
    now,
    log,
    // On a shared ledger the history names the instance that resumed or took over a batch.
    instance: ledger.engine === 'postgres' ? { id: instanceId, host: os.hostname() } : null,
    ...options.batches,
  });
  const approvals = new ApprovalService({
    repos,
    records: approvalRecords,
    policies: approvalPolicies,
    payouts: payments.payouts,
    batches,
    reviews,
    // Only a team server has people to approve; its digest key is sealed with its other credentials.
    ...(serverSecrets ? { digest: new ApprovalDigest(serverSecrets) } : {}),
    now,
    person: () => currentPerson(),
    log,
    ...options.approvals,
  });

  // Notifications are claims: each one that claims news is confirmed by a status read.
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
  const poller = new StatusPoller({ verifier, repos, now, log, timings: options.verification?.polling });
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
  const views = new LedgerViews(repos, now, referenceReads);
  const sweeper = new Sweeper({
    repos,
    verifier,
    applier,
    now,
    log,
    publish: (state) => events.publish('reconciliation:sweep-changed', state),
    settleUnknown: (settle) => payments.settler.settleAll(settle),
    cluster,
    foundMismatches: (found) => notices.sweepFoundMismatches(found),
  });
  // Settlement reports and bank statements, their matching and break queues (docs/statements.md).
  const statements = new StatementsService({ repos, profiles, now, ids: randomIds, person: () => currentPerson()?.username, publish: (channel, payload) => events.publish(channel, payload), sharedLedger: ledger.engine === 'postgres' });
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
    reconciliation: new ReconciliationService({ repos, now, sweeper, referenceReads }),
    evidence: new EvidenceService({ repos, views, now, version }),
    statements,
    batches,
    limits,
    approvals,
    approvalPolicies,
    notices,
  });
  const ownDispatch = createDispatcher(handlers, (channel, error) => log.error(`handler ${channel} failed`, error));
  // Other instances share the ledger: one of a newer Paydesk may migrate it while this one runs.
  const schemaWatch =
    ledger.engine === 'postgres'
      ? new SchemaWatch({
          newest: newestMigration,
          recordedAfter: (version) => migrationsAfter(ledger, version),
          everyMs: presence.timings.heartbeatMs,
          log,
          onIncompatible: (reason) => void drain.begin(reason, () => batches.close()),
        })
      : undefined;
  metrics.readFrom({
    batchItemsInFlight: () => repos.batches.countInFlight(),
    approvalsWaiting: () => repos.approvals.countAwaiting(),
    instancesAlive: async () => (await presence.census()).alive.length,
    leader: () => cluster.leads('recovery'),
    pool: () => poolUsage(ledger),
    noticeOutbox: () => repos.notices.outbox(),
  });
  const teamParts = team && serverSecrets ? { service: team, secrets: serverSecrets, authorizer: new Authorizer({ profiles: repos.profiles, policy: () => team.policy() }) } : undefined;
  return {
    ledger,
    repos,
    cluster,
    presence,
    events,
    screens,
    link,
    relay,
    settings,
    local,
    emulator,
    retention,
    applier,
    announceApplied,
    listener,
    bindListener,
    profiles,
    readLimiter,
    payments,
    polls,
    approvals,
    batches,
    verifier,
    poller,
    takeover,
    sweeper,
    statements,
    notices,
    sender,
    watches,
    dispatch: drain.gate(link ? link.dispatch(ownDispatch) : ownDispatch),
    drain,
    schemaWatch,
    health,
    metrics,
    team: teamParts,
  };
}
