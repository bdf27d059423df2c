// The only module that imports keytar.
import keytar from 'keytar';
import type { KeychainStatus } from '../../shared/contract';
import { KeychainLockedError, keychainError, type SecretStore } from '../services/secret-store';
import { errorMessage } from '../../shared/error-message';

const PROBE_TIMEOUT_MS = 3000;
/** The item the status probe writes and removes again. */
const PROBE_ACCOUNT = 'paydesk-keychain-probe';

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function reasonOf(error: unknown): string {
  const text = errorMessage(error);
  return text.split('\n')[0]?.slice(0, 200) ?? 'unknown error';
}

export class KeytarSecretStore implements SecretStore {
  constructor(private readonly service: string) {}

  /**
   * Whether credentials can be kept now, found by writing (and removing) an item of its own: a
   * locked collection answers searches and reads as if it were empty, and refuses only writes.
   */
  async status(): Promise<KeychainStatus> {
    const backend = `${process.platform} keychain via keytar`;
    try {
      await withTimeout(keytar.setPassword(this.service, PROBE_ACCOUNT, 'probe'), PROBE_TIMEOUT_MS);
      await withTimeout(keytar.deletePassword(this.service, PROBE_ACCOUNT), PROBE_TIMEOUT_MS);
      return { state: 'available', custody: 'keychain', backend, message: 'Credentials are stored in the OS keychain.' };
    } catch (error) {
      const failure = keychainError(reasonOf(error));
      return { state: failure instanceof KeychainLockedError ? 'locked' : 'unavailable', custody: 'keychain', backend, message: failure.message };
    }
  }

  async get(account: string): Promise<string | null> {
    return this.guard(() => keytar.getPassword(this.service, account));
  }

  async set(account: string, secret: string): Promise<void> {
    await this.guard(() => keytar.setPassword(this.service, account, secret));
  }

  async delete(account: string): Promise<boolean> {
    return this.guard(() => keytar.deletePassword(this.service, account));
  }

  private async guard<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await withTimeout(call(), PROBE_TIMEOUT_MS);
    } catch (error) {
      throw keychainError(reasonOf(error));
    }
  }
}
