// The core's start-up, in order: each step starts one thing of the wired services (services.ts)
// and says what undoes it; createCore walks them forward, and its close() walks them back
// (steps.ts). The order is the point, so it is written once, here, and
// test/integration/core-startup.test.ts holds it: the listener is bound before the applier recovers,
// interrupted attempts are recovered before anything is sent, handlers exist before batches resume.
// A new step: put it where what it needs has started, and give it the close that undoes it.
import type { CoreOptions } from '../core';
import { bindRemembered } from '../listener/movable';
import type { CoreServices } from './services';
import type { StartupStep } from './steps';

export function startupSteps(core: CoreServices, options: Pick<CoreOptions, 'listener' | 'log'>): StartupStep[] {
  const { ledger, cluster, presence, link, relay, settings, emulator, listener, applier, payments, repos, approvals, batches, verifier, poller, takeover } = core;
  const { log } = options;
  return [
    // Opened before the services are wired (they are wired on it); closed last.
    { name: 'ledger', close: () => ledger.close() },
    // Its connection opens on first use (presence, leadership, exclusive runs).
    { name: 'cluster', close: () => cluster.close() },
    { name: 'instance presence', start: () => presence.start(), close: () => presence.close() },
    // A desk shows its own pushes while it is not linked to a team server.
    ...(link
      ? [
          {
            name: 'team link',
            start: () => {
              core.events.subscribe((channel, payload, audience) => {
                if (!link.active) core.screens.publish(channel, payload, audience);
              });
            },
            close: () => link.close(),
          },
        ]
      : []),
    ...(relay ? [{ name: 'push relay', start: () => relay.start(), close: () => relay.close() }] : []),
    { name: 'emulator', start: () => emulator?.start(), close: () => emulator?.close(), trace: 'core: emulator started' },
    // A pile-up of unclaimed notifications (the listener's, from its first one on) schedules a run.
    { name: 'retention', close: () => core.retention.close() },
    // Closed after the listener, which lets its requests in flight be stored and answered: what it
    // stored while closing is applied before the ledger closes, not left pending for the next start
    // (but for those waiting to be tried again after a failure: the next start applies them).
    { name: 'applier drained on close', close: () => applier.close() },
    {
      name: 'listener',
      start: async () => {
        const remembered = { host: (await settings.listenerHost()) ?? '127.0.0.1', port: await settings.listenerPort() };
        const { bindListener } = core;
        await listener.open(() =>
          options.listener ? bindListener({ host: options.listener.host ?? '127.0.0.1', port: options.listener.port ?? 0 }) : bindRemembered(bindListener, remembered, (message) => log.warn(message)),
        );
      },
      close: () => listener.close(),
    },
    { name: 'listener port remembered', start: () => settings.rememberListenerPort(listener.port), trace: 'core: listener bound' },
    // What it applies before the verifier takes its results is found by verifier.recover().
    { name: 'applier.recoverPending', start: () => applier.recoverPending(), trace: 'core: applier.recoverPending done' },
    { name: 'local profile', start: () => core.profiles.ensureLocalProfile() },
    { name: 'read limiter', close: () => core.readLimiter.close() },
    // Before anything is sent: attempts a crash left in "sending" become "unknown" (never "failed"):
    // this instance's from before its restart, and any other dead instance's, never a live one's.
    { name: 'attempts.recoverInterrupted', start: async () => payments.attempts.recoverInterrupted(await presence.othersAlive()), trace: 'core: attempts.recoverInterrupted done' },
    // A crash between recording a create answer and applying it left a row without the gateway's id
    // and status: apply the stored answer again (a settled attempt is answered from the ledger; nothing is sent).
    {
      name: 'succeededWithoutAnswer',
      start: async () => {
        for (const key of await repos.attempts.succeededWithoutAnswer()) {
          const settled = await payments.attempts.settle({ key }).catch((error: unknown) => log.error(`re-applying the answer of attempt ${key} failed`, error));
          if (settled) log.info(`re-applied the recorded answer of attempt ${key}`);
        }
      },
      trace: 'core: succeededWithoutAnswer done',
    },
    // Approvals are a team server's: expired when due, audited and pushed to the screens that list them.
    ...(core.team ? [{ name: 'approval expiry', start: () => approvals.watchExpiry(), close: () => approvals.unwatchExpiry() }] : []),
    // Notices written from now on are pushed to this instance's screens (the inbox holds the rest).
    { name: 'notice announcer', start: () => core.notices.start(), close: () => core.notices.close() },
    { name: 'batch progress', start: () => batches.followPayouts(), close: () => batches.close() },
    // Notifications are claims: each one that claims news is confirmed by a status read.
    { name: 'verifier', start: () => verifier.start(), close: () => verifier.close() },
    { name: 'notification pushes', start: () => void applier.subscribe(core.announceApplied) },
    { name: 'status polling', start: () => core.polls.connect(poller), close: () => poller.close() },
    { name: 'applier.retryOrphans', start: () => applier.retryOrphans(), trace: 'core: applier.retryOrphans done' },
    // After retryOrphans: an orphan whose transaction is known by now is applied, not pruned.
    { name: 'retention.start', start: () => core.retention.start(), trace: 'core: retention.start done' },
    // One instance at a time leads the recovery (Takeover: the background work, dead instances).
    { name: 'recovery', start: () => cluster.lead('recovery', { lead: () => takeover.lead(), lost: () => takeover.lost() }), close: () => takeover.close() },
    // One instance at a time sends the e-mail and chat notices of the outbox (a team server's).
    ...(core.sender ? [{ name: 'notice sender', start: () => cluster.lead('notices', { lead: () => core.sender!.lead(), lost: () => core.sender!.lost() }), close: () => core.sender?.close() }] : []),
    // One instance at a time runs the time-based watches: reminders, escalations, silent live profiles.
    { name: 'watches', start: () => cluster.lead('watches', { lead: () => core.watches.lead(), lost: () => core.watches.lost() }), close: () => core.watches.close() },
    { name: 'sweeper', close: () => core.sweeper.close() },
    // An import a crash interrupted is refused and its half-read lines dropped.
    { name: 'statements.recover', start: () => core.statements.recover() },
    ...(core.schemaWatch ? [{ name: 'schema watch', start: () => core.schemaWatch?.start(), close: () => core.schemaWatch?.close() }] : []),
    // Batches that were running when this instance stopped go on (their open items under their own keys).
    { name: 'batches.recover', start: async () => {
        await batches.recover(await presence.othersAlive());
      }, trace: 'core: batches.recover done' },
    { name: 'unknown-outcome settler', close: () => payments.settler.close() },
    // A desk signed in to a team server before works on it again, if the server still knows its session.
    ...(link ? [{ name: 'team link restored', start: () => link.restore() }] : []),
  ];
}
