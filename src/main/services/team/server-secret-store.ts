// A team server's credentials: sealed under its envelope key (envelope-key.ts) in the ledger's
// server_secrets table, opened only in the server's memory when a call needs them. They never
// travel to a client: the contract shows "set" and a fingerprint, as on a desk.
import type { KeychainStatus } from '../../../shared/contract';
import type { ServerSecretsRepository } from '../../ledger/repositories/team';
import { ServiceError } from '../errors';
import type { SecretStore } from '../secret-store';
import type { EnvelopeKey } from './envelope-key';

export class ServerSecretStore implements SecretStore {
  constructor(
    private readonly secrets: ServerSecretsRepository,
    private readonly key: EnvelopeKey,
  ) {}

  async status(): Promise<KeychainStatus> {
    return { state: 'available', custody: 'server', backend: `team server, sealed with AES-256-GCM under envelope key ${this.key.id}`, message: 'Credentials are kept by the team server, sealed under its envelope key; they never reach this browser.' };
  }

  async get(account: string): Promise<string | null> {
    const stored = await this.secrets.get(account);
    if (!stored) return null;
    try {
      return this.key.open(stored.sealed, account);
    } catch (error) {
      throw new ServiceError('unavailable', `The team server cannot open the credential it keeps (${(error as Error).message}).`);
    }
  }

  async set(account: string, secret: string): Promise<void> {
    await this.secrets.put(account, this.key.seal(secret, account), this.key.id);
  }

  async setIfAbsent(account: string, secret: string): Promise<void> {
    await this.secrets.putIfAbsent(account, this.key.seal(secret, account), this.key.id);
  }

  async delete(account: string): Promise<boolean> {
    return this.secrets.delete(account);
  }
}
