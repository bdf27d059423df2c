// The batch survives the app being killed: a core in a child process runs a batch of 50 payouts
// through a proxy that holds each create answer back after the gateway has acted, and is killed
// with SIGKILL while answers are held. A new core on the same data directory resumes the batch:
// items whose attempt may have left are settled under their own Idempotency-Key (the gateway
// replays its first answer), the rest are sent. The gateway (which outlived the kill) holds each
// payout exactly once, bound to one key, and the ledger is intact. On both engines: the child
// opens the ledger this run uses (PAYDESK_TEST_ENGINE).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index';
import { createCore, type Core } from '../../../src/main/core';
import { testDatabaseFor } from '../../helpers/ledger';
import { tempDir } from '../../helpers/temp-dir';
import { killAllStarted, startChild } from '../../reliability/helpers/child';
import { startLatencyProxy, type LatencyProxy } from '../../reliability/helpers/latency-proxy';
import { countBy, gatewayState, ledgerAt, ledgerIntegrityProblems, withLedger } from '../../reliability/helpers/stores';
import { waitFor } from '../payments/harness';
import { batchRows, coreOptions, exactlyOnceProblems, getBatch, type BatchChildConfig } from './helpers';

const temp = tempDir('paydesk-batch-kill-');
let emulator: EmulatorHandle | undefined;
let proxy: LatencyProxy | undefined;
let core: Core | undefined;

afterAll(async () => {
  await killAllStarted();
  await core?.close();
  await proxy?.close();
  await emulator?.close();
  temp.cleanup();
});

describe('a batch when the app is killed', () => {
  it('resumes after SIGKILL mid-batch and leaves every payout at the gateway exactly once', { timeout: 60_000 }, async () => {
    const emulatorFile = path.join(temp.dir, 'gateway.sqlite');
    emulator = await startEmulator({ dataFile: emulatorFile, quiet: true, scenarioTiming: { payinCompleteMs: 50, payoutProcessingMs: 50, payoutFinalMs: 150 } });
    proxy = await startLatencyProxy(new URL(emulator.baseUrl).origin, () => 150);
    const dataDir = path.join(temp.dir, 'data');
    const rows = batchRows(50, { prefix: `killed-${Date.now()}` });
    const config: BatchChildConfig = {
      dataDir,
      database: await testDatabaseFor(dataDir),
      gateway: { baseUrl: proxy.baseUrl, adminUrl: emulator.adminUrl, hostedUrl: emulator.hostedUrl, merchant: emulator.merchant },
      rows,
    };
    const configFile = path.join(temp.dir, 'child.json');
    writeFileSync(configFile, JSON.stringify(config));

    const child = startChild(configFile, 0, path.join(import.meta.dirname, 'batch-child.ts'));
    const started = await child.waitFor((line) => line.event === 'started', 30_000);
    const sends = proxy.sendsPerKey;
    // Kill right after the 15th create reached the gateway, while its answer (and others') is held back.
    await waitFor(() => sends.size, (n) => n >= 15, 'the 15th create to go out', 20_000);
    const exit = await child.kill('SIGKILL');
    expect(exit.signal).toBe('SIGKILL');

    const ledger = await ledgerAt(dataDir);
    expect(await ledgerIntegrityProblems(ledger)).toEqual([]);
    const itemsIn = (state: string) => withLedger(ledger, async (db) => (await db.get<{ n: number }>('SELECT count(*) AS n FROM batch_items WHERE state = ?', [state]))?.n ?? 0);
    const interrupted = await itemsIn('sending');
    const interruptedKeys = await withLedger(ledger, async (db) => (await db.all<{ idempotency_key: string }>("SELECT idempotency_key FROM batch_items WHERE state = 'sending'")).map((r) => r.idempotency_key));
    const pendingAtKill = await itemsIn('pending');
    expect(interrupted, 'items cut off mid-send').toBeGreaterThan(0);
    expect(pendingAtKill, 'items never prepared').toBeGreaterThan(0);

    core = await createCore(coreOptions({ dataDir: config.dataDir, database: config.database, gateway: config.gateway }));
    const id = Number(started.id);
    const done = await waitFor(() => getBatch(core!.dispatch, id), (b) => b.state === 'done', 'the batch to finish after the restart', 30_000);
    expect(done.counts).toMatchObject({ sent: 50, sending: 0, unknown: 0, pending: 0 });

    const state = gatewayState(emulatorFile);
    const references = rows.map((r) => String(r.form.merchantReference));
    expect(exactlyOnceProblems(countBy(state.payouts, (p) => p.merchant_reference), references)).toEqual([]);
    expect(state.payouts).toHaveLength(50);
    const keysPerReference = countBy(state.keys, (k) => k.reference ?? '(none)');
    expect(references.filter((ref) => keysPerReference.get(ref) !== 1)).toEqual([]);
    // The interrupted items were settled under their own key (one key per reference, above): found
    // by a status read by merchantReference where their create had reached the gateway, or sent
    // under that key where it had not.
    const settledBy = await withLedger(ledger, (db) => db.all<{ idempotency_key: string; state: string; response_source: string }>(`SELECT idempotency_key, state, response_source FROM attempts WHERE idempotency_key IN (${interruptedKeys.map(() => '?').join(', ')})`, interruptedKeys));
    expect(settledBy).toHaveLength(interrupted);
    for (const attempt of settledBy) expect([attempt.state, attempt.response_source], attempt.idempotency_key).toEqual(['succeeded', expect.stringMatching(/^(status_read|create)$/)]);
    expect(sends.size).toBe(50);
    const ledgerKeys = await withLedger(ledger, (db) => db.all<{ idempotency_key: string }>('SELECT idempotency_key FROM batch_items'));
    expect(new Set(ledgerKeys.map((k) => k.idempotency_key))).toEqual(new Set(sends.keys()));
  });
});
