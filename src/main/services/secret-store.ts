// Credentials live in the OS keychain only. This interface is what services see; the keytar
// implementation lives in platform/. There is deliberately no plaintext fallback.
import type { KeychainStatus } from '../../shared/contract';
import { ServiceError } from './errors';

export interface SecretStore {
  status(): Promise<KeychainStatus>;
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<boolean>;
}

export class KeychainUnavailableError extends ServiceError {
  constructor(detail: string) {
    super(
      'unavailable',
      `The OS keychain is not reachable (${detail}). Paydesk keeps credentials only in the keychain and stored nothing; ` +
        'unlock or start your keychain (on Linux: a Secret Service such as gnome-keyring) and try again.',
    );
    this.name = 'KeychainUnavailableError';
  }
}
