// What a batch costs the ledger, end to end (core, payout path, embedded emulator), on either
// engine: each commit is a flush to disk (an fsync on the main thread with SQLite's
// synchronous=FULL, a WAL flush on PostgreSQL), so a batch item is sent with at
// most one commit (its answer, shared with the answers that arrived with it and with the next
// item's intent), and no row is written outside a transaction along the way. The emulator holds
// its notifications back, so the only writes are the batch's own.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../../src/main/core';
import { silentLogger, testCoreOptions } from '../../helpers/app-core';
import { tempDir } from '../../helpers/temp-dir';
import { waitFor } from '../payments/harness';
import { batchRows, countCommits, exactlyOnceProblems, gatewayPayoutsByReference, getBatch, uploadBatch } from './helpers';

const temp = tempDir('paydesk-batch-commits-');
let core: Core | undefined;

afterAll(async () => {
  await core?.close();
  temp.cleanup();
});

describe('the ledger commits of a batch', () => {
  it('are at most one per item, none of them outside a transaction', { timeout: 30_000 }, async () => {
    const dataDir = path.join(temp.dir, 'data');
    core = await createCore(
      await testCoreOptions(dataDir, {
        emulator: { quiet: true, logger: silentLogger, scenarioTiming: { payinCompleteMs: 60_000, payoutProcessingMs: 60_000, payoutFinalMs: 60_000 } },
        batches: { concurrency: 4, progressIntervalMs: 20 },
      }),
    );
    const rows = batchRows(40, { prefix: `commits-${Date.now()}` });
    const draft = await uploadBatch(core.dispatch, rows, { start: false });
    const counter = countCommits(core.ledger);
    await core.dispatch('batches:start', { id: draft.id });
    const done = await waitFor(() => getBatch(core!.dispatch, draft.id), (b) => b.state === 'done', 'the batch to finish', 20_000);

    expect(done.counts).toMatchObject({ sent: 40, sending: 0, pending: 0, unknown: 0 });
    expect(exactlyOnceProblems(gatewayPayoutsByReference(path.join(dataDir, 'emulator.sqlite')), rows.map((r) => String(r.form.merchantReference)))).toEqual([]);
    // The start (audited), the first four intents, at most one commit per answer, and the end
    // ("done", with its event in the batch's history).
    expect(counter.commits).toBeGreaterThan(3);
    expect(counter.commits).toBeLessThanOrEqual(40 + 3);
    expect(counter.writesOutside()).toBe(0);
  });
});
