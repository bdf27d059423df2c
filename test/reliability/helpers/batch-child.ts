// A Paydesk core in its own process running one CSV payout batch through the contract, so the
// crash-batch test can SIGKILL it at any point and start it again on the same data directory:
//   node --import tsx test/reliability/helpers/batch-child.ts <config.json> <run number>
// Each run opens the core (start-up recovery: interrupted attempts become "unknown", a running
// batch resumes by itself, a draft an earlier run left half-uploaded is dropped). If the ledger
// holds no started batch yet, it uploads the rows as the renderer does ('batches:create', chunks
// of 'batches:add-items', 'batches:start'). Then it follows the batch until every item is settled,
// asking 'batches:resume' when the batch stopped with items still open (a paused batch, or a
// finished one with "unknown" items). One JSON line per step on stdout; the core's log goes to a
// file. Mode 'exit' closes the core and exits 0 once the batch is settled; mode 'serve' keeps the
// core (and its listener, for the payouts' notifications) up until SIGTERM.
import { BATCH_CHUNK_ROWS, type BatchRowForm, type BatchView, type Envelope } from '../../../src/shared/contract';
import { createCore } from '../../../src/main/core';
import type { LocalGateway } from '../../../src/main/services/local-gateway';
import { MemorySecretStore } from '../../helpers/app-core';
import { childArgs, CRASH_VERIFICATION_TIMINGS, crashGateway, emit, fileLogger, must, runChild, sleep, stopOnSignals } from './child-side';

export interface BatchChildConfig {
  dataDir: string;
  /** The PostgreSQL ledger (postgres://…); absent: the SQLite ledger in the data directory. */
  database?: string | undefined;
  logFile: string;
  gateway: Omit<LocalGateway, 'registerKey' | 'close'>;
  fileName: string;
  rows: { line: number; form: BatchRowForm }[];
  mode: 'exit' | 'serve';
  /** Per-call timeout of gateway calls. */
  gatewayTimeoutMs: number;
}

const { config, run } = childArgs<BatchChildConfig>();
const log = fileLogger(config.logFile, run);

const open = (b: BatchView) => b.counts.pending + b.counts.sending + b.counts.unknown;

async function main(): Promise<void> {
  const core = await createCore({
    mode: 'web',
    version: 'reliability',
    dataDir: config.dataDir,
    database: config.database,
    secrets: new MemorySecretStore(),
    log,
    localGateway: { ...config.gateway, registerKey: async () => {}, close: async () => {} },
    gateway: crashGateway(config.gatewayTimeoutMs),
    verification: { rateLimit: { burst: 200, refillPerSecond: 200 }, timings: CRASH_VERIFICATION_TIMINGS },
    batches: { concurrency: 4, progressIntervalMs: 50 },
  });
  const started = (await core.ledger.all<{ id: number }>("SELECT id FROM batches WHERE state != 'draft' ORDER BY id")).map((b) => b.id);
  emit({ event: 'ready', pid: process.pid, batches: started });

  const stop = stopOnSignals(core, log);

  let id = started[0];
  if (started.length > 1) throw new Error(`the ledger holds ${started.length} started batches, expected one`);
  if (id === undefined) {
    emit({ event: 'uploading' });
    const draft = await must<BatchView>(core, 'batches:create', { fileName: config.fileName, rows: config.rows.length });
    for (let i = 0; i < config.rows.length; i += BATCH_CHUNK_ROWS) {
      await must(core, 'batches:add-items', { id: draft.id, items: config.rows.slice(i, i + BATCH_CHUNK_ROWS) });
    }
    const view = await must<BatchView>(core, 'batches:start', { id: draft.id });
    id = view.id;
    emit({ event: 'started', id });
  }

  // Follow the batch; resume it when it stopped with items still open (bounded).
  let resumes = 0;
  for (;;) {
    const view = await must<BatchView>(core, 'batches:get', { id });
    if (open(view) === 0 && view.state !== 'running') {
      emit({ event: 'done', id, state: view.state, counts: view.counts, resumes });
      break;
    }
    const idle = view.state === 'paused' || (view.state === 'done' && view.counts.pending + view.counts.sending === 0);
    if (idle && open(view) > 0) {
      if (++resumes > 40) throw new Error(`batch ${id} still has open items after 40 resumes: ${JSON.stringify(view.counts)}`);
      emit({ event: 'resuming', id, state: view.state, counts: view.counts });
      const answer = (await core.dispatch('batches:resume', { id })) as Envelope<BatchView>;
      // Settled meanwhile: nothing left to resume.
      if (!answer.ok && answer.error.code !== 'conflict') throw new Error(`batches:resume failed: ${answer.error.code} ${answer.error.message}`);
    }
    await sleep(idle ? 200 + resumes * 50 : 50);
  }
  if (config.mode === 'exit') stop();
}

runChild(main, log);
