import { invokeContract, type ContractErrorBody, type InvokeChannel, type InvokeInput, type InvokeOutput } from '../../src/shared/contract';
import { createCore, type Core, type CoreOptions } from '../../src/main/core';
import { testDatabaseFor } from './ledger';
import type { Logger } from '../../src/main/logger';
import type { SecretStore } from '../../src/main/services/secret-store';

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/** An in-memory secret store for tests that are not about the keychain. */
export class MemorySecretStore implements SecretStore {
  readonly secrets = new Map<string, string>();
  async status() {
    return { state: 'available' as const, custody: 'keychain' as const, backend: 'memory (test)', message: 'test store' };
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

/** A short create-call retry policy (3 tries, 50-200 ms apart), so an exhausted attempt costs little. */
export const SHORT_RETRIES = { maxTries: 3, maxTotalMs: 5_000, baseDelayMs: 50, factor: 2, maxDelayMs: 200 };

/**
 * What a test core on `dataDir` starts with: web mode, this run's ledger (test/helpers/ledger.ts),
 * the embedded emulator with fast scenario timings and deliveries, a silent log, an in-memory
 * secret store; `more` on top (its own secrets, retry policy, verification timings, another
 * core's database).
 */
export async function testCoreOptions(dataDir: string, more: Partial<CoreOptions> = {}): Promise<CoreOptions> {
  return {
    mode: 'web',
    version: 'test',
    dataDir,
    database: more.database ?? (await testDatabaseFor(dataDir)),
    secrets: new MemorySecretStore(),
    log: silentLogger,
    emulator: { scenarioTiming: { payinCompleteMs: 50, payoutProcessingMs: 50, payoutFinalMs: 100 }, delivery: { firstAttemptDelayMs: 10, firstRetryDelayMs: 100 } },
    ...more,
  };
}

export async function testCore(dataDir: string, secrets: SecretStore = new MemorySecretStore(), log: Logger = silentLogger): Promise<Core> {
  return createCore(await testCoreOptions(dataDir, { secrets, log }));
}

/**
 * A contract call through the core's dispatch, as a harness makes it: the answer held to the
 * channel's output schema (the contract promises that shape to the renderer), a refusal thrown as
 * an Error carrying the error body. Every envelope goes into `seen` when given.
 */
export async function contractCall<C extends InvokeChannel>(core: Pick<Core, 'dispatch'>, channel: C, input?: InvokeInput<C>, seen?: unknown[]): Promise<InvokeOutput<C>> {
  const envelope = await core.dispatch(channel, input);
  seen?.push(envelope);
  if (!envelope.ok) throw Object.assign(new Error(`${channel}: ${envelope.error.message}`), envelope.error);
  const checked = invokeContract[channel].output.safeParse(envelope.value);
  if (!checked.success) throw new Error(`${channel} answered outside its output schema: ${JSON.stringify(checked.error.issues.slice(0, 3))}`);
  return envelope.value as InvokeOutput<C>;
}

/** The error body of a call that must be refused (an Error when it succeeds). */
export async function contractRefusal(core: Pick<Core, 'dispatch'>, channel: InvokeChannel, input?: unknown, seen?: unknown[]): Promise<ContractErrorBody> {
  const envelope = await core.dispatch(channel, input);
  seen?.push(envelope);
  if (envelope.ok) throw new Error(`${channel} unexpectedly succeeded`);
  return envelope.error;
}

/** A call to the embedded emulator's admin API (GET without a body, POST with one). */
export async function emulatorAdmin<T = Record<string, unknown>>(core: Core, pathname: string, body?: unknown, method = body === undefined ? 'GET' : 'POST'): Promise<{ status: number; body: T }> {
  const response = await fetch(`${core.local.adminUrl}${pathname}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as T };
}
