// A batch that survived crashes says so: a core in a child process runs a batch through a proxy
// that holds each create answer back, and is killed with SIGKILL three times while answers are
// held; each new child resumes the batch by itself at start-up. The batch's history then holds,
// in order, its start, each interruption (found at the next start: "unexpected", dated by the
// batch's last recorded activity, with the items it left in flight and not sent yet), each
// automatic resume (by Paydesk, audited as the system's), and its end.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BatchView } from '../../../src/shared/contract';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator/index';
import { createCore, type Core } from '../../../src/main/core';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { testDatabaseFor } from '../../helpers/ledger';
import { tempDir } from '../../helpers/temp-dir';
import { killAllStarted, startChild } from '../../reliability/helpers/child';
import { startLatencyProxy, type LatencyProxy } from '../../reliability/helpers/latency-proxy';
import { ledgerAt, ledgerIntegrityProblems, withLedger } from '../../reliability/helpers/stores';
import { waitFor } from '../payments/harness';
import { batchRows, coreOptions, getBatch, type BatchChildConfig } from './helpers';

const temp = tempDir('paydesk-batch-history-');
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

describe('the history of a batch killed three times', () => {
  it('holds each interruption with what it left in flight, each automatic resume, and the end', { timeout: 90_000 }, async () => {
    emulator = await startEmulator({ dataFile: path.join(temp.dir, 'gateway.sqlite'), quiet: true, scenarioTiming: { payinCompleteMs: 50, payoutProcessingMs: 50, payoutFinalMs: 150 } });
    proxy = await startLatencyProxy(new URL(emulator.baseUrl).origin, () => 150);
    const dataDir = path.join(temp.dir, 'data');
    const ledger = await ledgerAt(dataDir);
    const database = await testDatabaseFor(dataDir);
    const gateway = { baseUrl: proxy.baseUrl, adminUrl: emulator.adminUrl, hostedUrl: emulator.hostedUrl, merchant: emulator.merchant };
    const upload: BatchChildConfig = { dataDir, database, gateway, rows: batchRows(60, { prefix: `history-${Date.now()}` }) };
    const resume: BatchChildConfig = { dataDir, database, gateway };
    const uploadFile = path.join(temp.dir, 'upload.json');
    const resumeFile = path.join(temp.dir, 'resume.json');
    writeFileSync(uploadFile, JSON.stringify(upload));
    writeFileSync(resumeFile, JSON.stringify(resume));
    const sends = proxy.sendsPerKey;
    const itemStates = () =>
      withLedger(ledger, async (db) => Object.fromEntries((await db.all<{ state: string; n: number }>('SELECT state, count(*) AS n FROM batch_items GROUP BY state')).map((r) => [r.state, r.n])));

    // Three runs, each killed right after more creates went out (their answers held by the proxy).
    let id = 0;
    const atKill: Record<string, number>[] = [];
    for (const [run, newSends] of [10, 25, 40].entries()) {
      const child = startChild(run === 0 ? uploadFile : resumeFile, run, path.join(import.meta.dirname, 'batch-child.ts'));
      if (run === 0) id = Number((await child.waitFor((line) => line.event === 'started', 30_000)).id);
      else await child.waitFor((line) => line.event === 'ready', 30_000);
      await waitFor(() => sends.size, (n) => n >= newSends, `create number ${newSends} to go out`, 20_000);
      expect((await child.kill('SIGKILL')).signal).toBe('SIGKILL');
      expect(await ledgerIntegrityProblems(ledger)).toEqual([]);
      atKill.push(await itemStates());
    }
    expect(atKill.every((states) => (states.sending ?? 0) > 0 && (states.pending ?? 0) > 0)).toBe(true);

    core = await createCore(coreOptions(resume));
    const done: BatchView = await waitFor(() => getBatch(core!.dispatch, id), (b) => b.state === 'done', 'the batch to finish after the last restart', 30_000);
    expect(done.counts).toMatchObject({ sent: 60, sending: 0, unknown: 0, pending: 0 });

    // Each start after a kill (the last one is this core's) found the stop and resumed the batch.
    expect(done.history.map((e) => `${e.kind}:${e.actor}`)).toEqual([
      'started:user',
      'interrupted:system',
      'resumed:system',
      'interrupted:system',
      'resumed:system',
      'interrupted:system',
      'resumed:system',
      'finished:system',
    ]);
    expect(done.historyTotal).toBe(8);
    const interruptions = done.history.filter((e) => e.kind === 'interrupted');
    const resumes = done.history.filter((e) => e.kind === 'resumed');
    interruptions.forEach((interruption, i) => {
      expect(interruption.cause).toBe('unexpected');
      // What the kill left: the items in flight (sent, answer never recorded) and those not sent yet.
      expect(interruption.items).toEqual({ inFlight: atKill[i]?.sending ?? 0, pending: atKill[i]?.pending ?? 0, unknown: atKill[i]?.unknown ?? 0 });
      // Dated by the last activity before the kill: after the previous event, before it was found.
      const previousAt = done.history[done.history.indexOf(interruption) - 1]?.at ?? '';
      const stoppedAt = interruption.stoppedAt ?? '';
      expect(previousAt <= stoppedAt && stoppedAt <= interruption.at, `${previousAt} <= ${stoppedAt} <= ${interruption.at}`).toBe(true);
      expect((resumes[i]?.at ?? '') >= interruption.at).toBe(true);
      expect(resumes[i]?.items).toEqual(interruption.items);
    });

    // Each automatic resume is the system's in the audit log too.
    const audit = (await createRepositories(core.ledger).audit.list({ limit: 1000 })).filter((e) => e.subject === `batch:${id}` && e.action === 'batch.resume');
    expect(audit.map((e) => e.actor)).toEqual(['system', 'system', 'system']);
  });
});
