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

/** How to unlock the keychain here: said with every report of a locked one. */
export function unlockHint(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return 'Unlock it: open Keychain Access and unlock the login keychain (or run `security unlock-keychain`).';
  if (platform === 'linux') {
    return (
      'Unlock it: log in to the desktop session, or unlock the "Login" keyring in Passwords and Keys; without a desktop, run ' +
      '`gnome-keyring-daemon --replace --unlock` with the keyring password on standard input (it creates a missing keyring), then restart Paydesk.'
    );
  }
  return 'Unlock it: sign in to your user session again.';
}

/** The Secret Service answers, but its collection is locked (or was never created): nothing can be stored. */
export class KeychainLockedError extends ServiceError {
  constructor(detail: string) {
    super('unavailable', `The OS keychain is locked (${detail}): Paydesk stored nothing and cannot read credentials until it is unlocked. ${unlockHint()}`);
    this.name = 'KeychainLockedError';
  }
}

// gnome-keyring: "Cannot create an item in a locked collection"; no login keyring yet: "Object does
// not exist at path “/org/freedesktop/secrets/collection/login”"; macOS: "User interaction is not allowed."
const LOCKED = /locked|does not exist at path\W+\/org\/freedesktop\/secrets\/collection\/|interaction is not allowed/i;

// libsecret keeps the session it opened with the daemon; a daemon started since does not know it.
const STALE_SESSION = /session wrapping the secret does not exist/i;

/** A keychain failure as what it means: locked (unlock it), or not reachable at all (start it). */
export function keychainError(detail: string): KeychainLockedError | KeychainUnavailableError {
  if (LOCKED.test(detail)) return new KeychainLockedError(detail);
  return new KeychainUnavailableError(STALE_SESSION.test(detail) ? `${detail}; the keychain was restarted since Paydesk connected to it: restart Paydesk` : detail);
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
