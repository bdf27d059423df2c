import { createCore, type Core } from '../../src/main/core';
import type { Logger } from '../../src/main/logger';
import type { SecretStore } from '../../src/main/services/secret-store';

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/** An in-memory secret store for tests that are not about the keychain. */
export class MemorySecretStore implements SecretStore {
  readonly secrets = new Map<string, string>();
  async status() {
    return { available: true, backend: 'memory (test)', message: 'test store' };
  }
  async get(account: string) {
    return this.secrets.get(account) ?? null;
  }
  async set(account: string, secret: string) {
    this.secrets.set(account, secret);
  }
  async delete(account: string) {
    return this.secrets.delete(account);
  }
}

export function testCore(dataDir: string, secrets: SecretStore = new MemorySecretStore(), log: Logger = silentLogger): Promise<Core> {
  return createCore({
    mode: 'web',
    version: 'test',
    dataDir,
    secrets,
    log,
    emulator: { scenarioTiming: { payinCompleteMs: 50, payoutProcessingMs: 50, payoutFinalMs: 100 }, delivery: { firstAttemptDelayMs: 10, firstRetryDelayMs: 100 } },
  });
}
