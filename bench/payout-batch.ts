// A CSV batch of payouts (1,000 by default) through a real core and its embedded emulator, as
// the Batch screen sends it (draft, chunks, start): time to every item sent, the most items seen
// in flight at once, and how many payouts the gateway holds per merchantReference (none twice).
// The app's own concurrency unless --concurrency overrides it (for comparisons).
//   node --import tsx bench/payout-batch.ts [--rows 1000] [--concurrency N]
// The upload and the exactly-once check are the batch tests' own helpers, imported from test/ on
// purpose: the benchmark drives the app exactly as those tests do (both are dev-only code of the
// same TypeScript project; nothing under test/ or bench/ is built into the app).
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { BatchView } from '../src/shared/contract';
import { createCore } from '../src/main/core';
import { DEFAULT_BATCH_CONCURRENCY } from '../src/main/services/payouts-batch/batch-runner';
import { MemorySecretStore, silentLogger } from '../test/helpers/app-core';
import { batchRows, exactlyOnceProblems, gatewayPayoutsByReference, getBatch, uploadBatch } from '../test/integration/batches/helpers';
import { arg, ensureBenchDir, log, report, round, type Figure } from './lib';

const rows = arg('rows', 1_000);
const concurrency = arg('concurrency', DEFAULT_BATCH_CONCURRENCY);
const dir = mkdtempSync(path.join(ensureBenchDir(), 'batch-'));
const core = await createCore({
  mode: 'web', version: 'bench', dataDir: dir, secrets: new MemorySecretStore(), log: silentLogger,
  // Silent: deliveries still in flight when the core closes would only print connection resets.
  emulator: { quiet: true, logger: silentLogger, scenarioTiming: { payinCompleteMs: 50, payoutProcessingMs: 50, payoutFinalMs: 100 }, delivery: { firstAttemptDelayMs: 10 } },
  batches: { concurrency, progressIntervalMs: 50 },
});
let inFlight = 0;
const stop = core.events.subscribe((channel, payload) => {
  if (channel === 'batches:batch-changed') inFlight = Math.max(inFlight, (payload as BatchView).counts.sending);
});
const form = batchRows(rows, { prefix: `bench-${Date.now()}` });
const t = performance.now();
const started = await uploadBatch(core.dispatch, form, { fileName: 'bench.csv' });
const deadline = Date.now() + 120_000;
let batch = started;
while (batch.state !== 'done' && Date.now() < deadline) {
  await new Promise((r) => setTimeout(r, 20));
  batch = await getBatch(core.dispatch, started.id);
}
const seconds = (performance.now() - t) / 1000;
stop();
await core.close();
const problems = exactlyOnceProblems(gatewayPayoutsByReference(path.join(dir, 'emulator.sqlite')), form.map((r) => String(r.form.merchantReference)));
rmSync(dir, { recursive: true, force: true });
log(`batch: ${batch.state} in ${round(seconds, 2)} s, counts ${JSON.stringify(batch.counts)}, at most ${inFlight} in flight, ${problems.length} not exactly once`);

const figures: Figure[] = [
  { name: `payout batch of ${rows.toLocaleString('en')} (CSV, emulator)`, value: round(seconds, 2), unit: 's', target: { op: '<', value: 5 }, note: `${batch.state}: ${batch.counts.sent} sent, ${batch.counts.refused} refused, ${batch.counts.unknown} unknown` },
  { name: 'payout batch items in flight at most', value: inFlight, unit: 'items', target: { op: '<', value: concurrency + 1 }, note: `concurrency ${concurrency}, from the progress pushes` },
  { name: 'payout batch references not held exactly once', value: problems.length, unit: 'payouts', target: { op: '<', value: 1 }, note: problems.slice(0, 3).join('; ') || 'each reference once at the gateway' },
];
report(figures);
