// Shared by the batch tests: rows shaped like a mapped CSV file, the upload a renderer makes
// (draft, chunks, start), and reading what the gateway holds straight from the emulator's file.
import type { Envelope } from '../../../src/shared/contract';
import { BATCH_CHUNK_ROWS, type BatchRowForm, type BatchView } from '../../../src/shared/contract';
import type { Core } from '../../../src/main/core';
import type { Ledger } from '../../../src/main/ledger/connection';
import type { LocalGateway } from '../../../src/main/services/local-gateway';
import { MemorySecretStore, silentLogger } from '../../helpers/app-core';
import { gatewayState } from '../../reliability/helpers/stores';

const DETAILS = {
  open_banking: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', accountHolder: 'Ana Lima' },
  crypto: { walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7', network: 'ethereum' },
  fps: { sortCode: '401276', accountNumber: '12345678', accountHolder: 'Ana Lima' },
} as const;

const METHODS = ['open_banking', 'crypto', 'fps'] as const;

/** n rows cycling through the batchable methods, each with a distinct amount and its own reference. */
export function batchRows(n: number, options: { prefix: string; currency?: string; amount?: (i: number) => string; email?: string }): { line: number; form: BatchRowForm }[] {
  return Array.from({ length: n }, (_, i) => {
    const method = options.currency ? 'open_banking' : (METHODS[i % METHODS.length] as (typeof METHODS)[number]);
    const currency = options.currency ?? (method === 'fps' ? 'GBP' : 'EUR');
    const amount = options.amount?.(i) ?? (method === 'crypto' ? `0.${String(1000 + i).padStart(10, '0')}` : `${10 + i}.${String(i % 100).padStart(2, '0')}`);
    return {
      line: i + 2,
      form: {
        method,
        amount,
        currency,
        country: method === 'fps' ? 'GBR' : 'DEU',
        merchantReference: `${options.prefix}-${i + 1}`,
        customer: { firstName: 'Ana', lastName: `Lima${i}`, email: options.email ?? `ana${i}@example.com` },
        paymentDetails: DETAILS[method],
      },
    };
  });
}

type Dispatch = Core['dispatch'];

async function must<T>(dispatch: Dispatch, channel: string, input: unknown): Promise<T> {
  const envelope = (await dispatch(channel, input)) as Envelope<T>;
  if (!envelope.ok) throw Object.assign(new Error(`${channel}: ${envelope.error.message}`), envelope.error);
  return envelope.value;
}

/** What the Batch screen does on "Start": a draft, the rows in chunks, then start. */
export async function uploadBatch(dispatch: Dispatch, rows: { line: number; form: BatchRowForm }[], options: { fileName?: string; start?: boolean } = {}): Promise<BatchView> {
  const draft = await must<BatchView>(dispatch, 'batches:create', { fileName: options.fileName ?? 'payouts.csv', rows: rows.length });
  for (let i = 0; i < rows.length; i += BATCH_CHUNK_ROWS) {
    await must(dispatch, 'batches:add-items', { id: draft.id, items: rows.slice(i, i + BATCH_CHUNK_ROWS) });
  }
  return options.start === false ? draft : must<BatchView>(dispatch, 'batches:start', { id: draft.id });
}

export function getBatch(dispatch: Dispatch, id: number): Promise<BatchView> {
  return must<BatchView>(dispatch, 'batches:get', { id });
}

/** Payouts the emulator holds, per merchantReference (read from its SQLite file). */
export function gatewayPayoutsByReference(emulatorFile: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const payout of gatewayState(emulatorFile).payouts) counts.set(payout.merchant_reference, (counts.get(payout.merchant_reference) ?? 0) + 1);
  return counts;
}

/** Each reference exactly once at the gateway: the problems, [] when it holds. */
export function exactlyOnceProblems(held: Map<string, number>, references: readonly string[]): string[] {
  return references.filter((ref) => held.get(ref) !== 1).map((ref) => `${ref}: held ${held.get(ref) ?? 0} times`);
}

/** What batch-child.ts is started with. */
export interface BatchChildConfig {
  dataDir: string;
  gateway: Omit<LocalGateway, 'registerKey' | 'close'>;
  rows?: { line: number; form: BatchRowForm }[];
}

/** A core on `dataDir` in front of a gateway the test runs (it outlives a killed app); short retries. */
export function coreOptions(config: BatchChildConfig) {
  return {
    mode: 'web' as const,
    version: 'test',
    dataDir: config.dataDir,
    secrets: new MemorySecretStore(),
    log: silentLogger,
    localGateway: { ...config.gateway, registerKey: async () => {}, close: async () => {} },
    gateway: { timeoutMs: 3_000, runner: { policy: { maxTries: 4, maxTotalMs: 10_000, baseDelayMs: 50, factor: 2, maxDelayMs: 400 } } },
    batches: { concurrency: 4, progressIntervalMs: 20 },
  };
}

/**
 * The ledger's commits from now on (each one an fsync, synchronous=FULL): outermost transactions
 * that wrote something, and rows written outside any transaction (each statement its own commit).
 */
export function countCommits(db: Ledger): { commits: number; writesOutside: () => number } {
  const counter = { commits: 0, inside: 0 };
  const transaction = db.transaction.bind(db);
  const changes = db.prepare('SELECT total_changes()').pluck();
  const start = changes.get() as number;
  db.transaction = ((fn: (...args: unknown[]) => unknown) => {
    const run = transaction(fn);
    return (...args: unknown[]) => {
      if (db.inTransaction) return run(...args);
      const before = changes.get() as number;
      const result = run(...args);
      const written = (changes.get() as number) - before;
      if (written > 0) {
        counter.commits++;
        counter.inside += written;
      }
      return result;
    };
  }) as unknown as Ledger['transaction'];
  return {
    get commits() {
      return counter.commits;
    },
    writesOutside: () => (changes.get() as number) - start - counter.inside,
  };
}
