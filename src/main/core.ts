// The composition root shared by the Electron entry and the web-mode entry: it opens the ledger,
// builds the services with their dependencies and exposes one dispatcher and one event bus.
import { type AppInfo } from '../shared/contract';
import { createDispatcher, type Dispatch } from './ipc/dispatcher';
import { appHandlers } from './ipc/app-handlers';
import { openLedger, schemaVersion, type Ledger } from './ledger/connection';
import { ledgerFile } from './platform/paths';
import { EventBus } from './services/event-bus';
import type { SecretStore } from './services/secret-store';
import { SettingsService } from './services/settings-service';
import type { Logger } from './logger';

export interface CoreOptions {
  mode: AppInfo['mode'];
  version: string;
  dataDir: string;
  secrets: SecretStore;
  log: Logger;
  now?: () => Date;
}

export interface Core {
  dispatch: Dispatch;
  events: EventBus;
  ledger: Ledger;
  close(): Promise<void>;
}

export function createCore({ mode, version, dataDir, secrets, log, now = () => new Date() }: CoreOptions): Core {
  const file = ledgerFile(dataDir);
  const ledger = openLedger({ file, now });
  const events = new EventBus();
  const settings = new SettingsService(ledger, events, now);

  const handlers = {
    ...appHandlers({
      settings,
      info: async () => ({
        version,
        mode,
        dataDir,
        ledger: { file, schemaVersion: schemaVersion(ledger) },
        keychain: await secrets.status(),
        environment: { kind: 'local' as const, label: 'Local emulator' },
      }),
    }),
  };
  const dispatch = createDispatcher(handlers, (channel, error) => log.error(`handler ${channel} failed`, error));

  return {
    dispatch,
    events,
    ledger,
    async close() {
      ledger.close();
    },
  };
}
