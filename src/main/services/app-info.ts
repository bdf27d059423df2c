// What the About screen and the status bar show: this build, where its data lives, the keychain's
// state and the environment of the active profile.
import type { AppInfo } from '../../shared/contract';
import { schemaVersion, type Ledger } from '../ledger/connection';
import type { ProfilesRepository } from '../ledger/repositories/profiles';
import { environmentLabels } from './profile-service';
import type { SecretStore } from './secret-store';

export interface AppInfoDeps {
  version: string;
  mode: AppInfo['mode'];
  dataDir: string;
  ledger: Ledger;
  secrets: Pick<SecretStore, 'status'>;
  profiles: Pick<ProfilesRepository, 'active'>;
}

export class AppInfoService {
  constructor(private readonly deps: AppInfoDeps) {}

  async info(): Promise<AppInfo> {
    const { version, mode, dataDir, ledger, secrets, profiles } = this.deps;
    const active = await profiles.active();
    const kind = active?.environment ?? 'local';
    return {
      version,
      mode,
      dataDir,
      ledger: { engine: ledger.engine, location: ledger.location, schemaVersion: await schemaVersion(ledger) },
      keychain: await secrets.status(),
      environment: { kind, label: active && kind !== 'local' ? `${environmentLabels[kind]} · ${active.name}` : environmentLabels[kind] },
    };
  }
}
