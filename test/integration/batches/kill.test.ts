// The batch survives the app being killed: a core in a child process runs a batch of 50 payouts
// through a proxy that holds each create answer back after the gateway has acted, and is killed
// with SIGKILL while answers are held. A new core on the same data directory resumes the batch:
// items whose attempt may have left are settled under their own Idempotency-Key (the gateway
// replays its first answer), the rest are sent. The gateway (which outlived the kill) holds each
// payout exactly once, bound to one key, and the ledger file is intact.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index';
import { createCore, type Core } from '../../../src/main/core';
import { tempDir } from '../../helpers/temp-dir';
import { killAllStarted, startChild } from '../../reliability/helpers/child';
import { startLatencyProxy, type LatencyProxy } from '../../reliability/helpers/latency-proxy';
import { countBy, gatewayState, integrityProblems, withDb } from '../../reliability/helpers/stores';
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

    const ledgerFile = path.join(dataDir, 'ledger.sqlite');
    expect(integrityProblems(ledgerFile)).toEqual([]);
    const interrupted = withDb(ledgerFile, (db) => db.prepare("SELECT count(*) FROM batch_items WHERE state = 'sending'").pluck().get() as number);
    const pendingAtKill = withDb(ledgerFile, (db) => db.prepare("SELECT count(*) FROM batch_items WHERE state = 'pending'").pluck().get() as number);
    expect(interrupted, 'items cut off mid-send').toBeGreaterThan(0);
    expect(pendingAtKill, 'items never prepared').toBeGreaterThan(0);

    const { gateway } = config;
    core = await createCore({ ...coreOptions({ dataDir, gateway }) });
    const id = Number(started.id);
    const done = await waitFor(() => getBatch(core!.dispatch, id), (b) => b.state === 'done', 'the batch to finish after the restart', 30_000);
    expect(done.counts).toMatchObject({ sent: 50, sending: 0, unknown: 0, pending: 0 });

    const state = gatewayState(emulatorFile);
    const references = rows.map((r) => String(r.form.merchantReference));
    expect(exactlyOnceProblems(countBy(state.payouts, (p) => p.merchant_reference), references)).toEqual([]);
    expect(state.payouts).toHaveLength(50);
    const keysPerReference = countBy(state.keys, (k) => k.reference ?? '(none)');
    expect(references.filter((ref) => keysPerReference.get(ref) !== 1)).toEqual([]);
    // The interrupted items were settled by resending under their own key, never under a new one.
    expect([...sends.values()].some((n) => n > 1)).toBe(true);
    expect(sends.size).toBe(50);
    const ledgerKeys = withDb(ledgerFile, (db) => db.prepare('SELECT idempotency_key FROM batch_items').pluck().all() as string[]);
    expect(new Set(ledgerKeys)).toEqual(new Set(sends.keys()));
  });
});
