// The only module that imports keytar.
import keytar from 'keytar';
import type { KeychainStatus } from '../../shared/contract';
import { KeychainUnavailableError, type SecretStore } from '../services/secret-store';
import { errorMessage } from '../../shared/error-message';

const PROBE_TIMEOUT_MS = 3000;

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

  async status(): Promise<KeychainStatus> {
    const backend = `${process.platform} keychain via keytar`;
    try {
      await withTimeout(keytar.findCredentials(this.service), PROBE_TIMEOUT_MS);
      return { available: true, backend, message: 'Credentials are stored in the OS keychain.' };
    } catch (error) {
      return { available: false, backend, message: new KeychainUnavailableError(reasonOf(error)).message };
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
      throw new KeychainUnavailableError(reasonOf(error));
    }
  }
}
