// A Paydesk core in its own process (its own pool of connections to the ledger), driven by the
// test through the contract only, so two of them can share one PostgreSQL ledger as two desks do:
//   node --import tsx test/reliability/helpers/peer-child.ts <config.json> <name>
// Each stdin line is a call, {"id": n, "channel": "...", "input": {...}}; each answer is a stdout
// line {"event": "answer", "id": n, "envelope": {...}}, so calls to two children can be made at
// the same moment. The core is opened on the first line, "#open" (so the test can load two
// children's code side by side, then open their cores one after the other). "#sends" answers the create calls this process put on the wire, per
// Idempotency-Key (counted at its own fetch: which desk sent what, whatever gateway address the
// shared ledger's profile holds). "ready" is printed once the core is up (start-up recovery
// done); SIGTERM closes the core and exits 0. The core's log goes to a file.
import { appendFileSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createCore } from '../../../src/main/core';
import type { Logger } from '../../../src/main/logger';
import type { LocalGateway } from '../../../src/main/services/local-gateway';
import { MemorySecretStore } from '../../helpers/app-core';

export interface PeerChildConfig {
  dataDir: string;
  /** The shared PostgreSQL ledger. */
  database: string;
  logFile: string;
  gateway: Omit<LocalGateway, 'registerKey' | 'close'>;
  /** Per-call timeout of gateway calls. */
  gatewayTimeoutMs: number;
  /** Batch items in flight at once in this process. */
  concurrency: number;
}

const emit = (line: Record<string, unknown> & { event: string }) => process.stdout.write(`${JSON.stringify(line)}\n`);

const config = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as PeerChildConfig;
const name = process.argv[3] ?? 'peer';

const line = (level: string, message: string) => appendFileSync(config.logFile, `${new Date().toISOString()} ${name} ${level} ${message}\n`);
const log: Logger = {
  info: (message) => line('info', message),
  warn: (message) => line('warn', message),
  error: (message, error) => line('error', error instanceof Error ? `${message}: ${error.stack ?? error.message}` : message),
};

/** Create calls this process sent, per Idempotency-Key. */
const sends = new Map<string, number>();
const countingFetch: typeof globalThis.fetch = (input, init) => {
  const key = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get('idempotency-key');
  if (key) sends.set(key, (sends.get(key) ?? 0) + 1);
  return globalThis.fetch(input, init);
};

/** The stdin lines, one at a time. */
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

async function main(): Promise<void> {
  const first = await lines.next();
  if (first.done || (JSON.parse(first.value) as { channel?: string }).channel !== '#open') throw new Error('the first line must be #open');
  const core = await createCore({
    mode: 'web',
    version: 'reliability',
    dataDir: config.dataDir,
    database: config.database,
    secrets: new MemorySecretStore(),
    log,
    localGateway: { ...config.gateway, registerKey: async () => {}, close: async () => {} },
    gateway: { fetch: countingFetch, timeoutMs: config.gatewayTimeoutMs, runner: { policy: { maxTries: 4, maxTotalMs: 10_000, baseDelayMs: 50, factor: 2, maxDelayMs: 400 } } },
    batches: { concurrency: config.concurrency, progressIntervalMs: 50 },
  });
  process.on('SIGTERM', () => {
    void core.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error('close failed', error);
        process.exit(1);
      },
    );
  });
  emit({ event: 'ready', pid: process.pid });
  for await (const text of lines) {
    const call = JSON.parse(text) as { id: number; channel: string; input?: unknown };
    if (call.channel === '#sends') {
      emit({ event: 'answer', id: call.id, envelope: { ok: true, value: Object.fromEntries(sends) } });
      continue;
    }
    // Not awaited: calls run side by side, as a renderer's do.
    core.dispatch(call.channel, call.input).then(
      (envelope) => emit({ event: 'answer', id: call.id, envelope }),
      (error: unknown) => emit({ event: 'answer', id: call.id, envelope: { ok: false, error: { code: 'thrown', message: String(error) } } }),
    );
  }
}

main().catch((error: unknown) => {
  log.error('child failed', error);
  emit({ event: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exit(2);
});
