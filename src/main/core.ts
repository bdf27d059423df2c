// The composition root shared by the Electron entry and the web-mode entry: it opens the ledger,
// starts the embedded gateway emulator and the notification listener, builds the services with
// their dependencies, and exposes one dispatcher and one event bus.
import path from 'node:path';
import type { AppInfo } from '../shared/contract';
import { startEmulator } from '../emulator/index';
import { createDispatcher, type Dispatch, type Handlers } from './ipc/dispatcher';
import { appHandlers } from './ipc/app-handlers';
import { profileHandlers } from './ipc/profile-handlers';
import { openLedger, schemaVersion, type Ledger } from './ledger/connection';
import { createRepositories } from './ledger/repositories/index';
import { notificationLink, startListener, type Listener } from './listener/index';
import type { Logger } from './logger';
import { ledgerFile } from './platform/paths';
import { CredentialService } from './services/credential-service';
import { EventBus } from './services/event-bus';
import { GatewaySessions } from './services/gateway-sessions';
import { localGatewayFrom, type LocalGateway } from './services/local-gateway';
import { NotificationApplier } from './services/notification-applier';
import { environmentLabels, ProfileService } from './services/profile-service';
import type { SecretStore } from './services/secret-store';
import { SettingsService } from './services/settings-service';

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

    const applier = new NotificationApplier({ db: ledger, now, log });
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
    const gateways = new GatewaySessions({ credentials, attempts: repos.attempts });
    void gateways; // used by the payment and verification services (next)

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
    };
    const dispatch = createDispatcher(handlers, (channel, error) => log.error(`handler ${channel} failed`, error));
    return { dispatch, events, ledger, local, listener, close };
  } catch (error) {
    await close();
    throw error;
  }
}
