// Crashes during a CSV batch: a Paydesk core in a child process uploads and runs a 200-payout
// batch (open_banking, crypto, fps: card rows are refused in batches by design) through the
// contract, against an emulator that outlives it (its state in a file, behind a proxy that holds
// each create answer back after the gateway has acted). The child is killed with SIGKILL at random
// points, repeatedly: mostly right after the n-th create went out (answers held, items in flight),
// sometimes at a random time after spawn (start-up recovery, the upload). Each restart resumes
// the batch by itself (BatchService.recover) or through 'batches:resume'. At the end the gateway
// holds each item's payout exactly once, under the one Idempotency-Key the item recorded, the
// ledger agrees with it (ids, amounts, currencies, statuses), no item is left open, the gateway's
// file passes integrity_check and the ledger is intact after every kill (ledgerIntegrityProblems).
// On both engines: the child opens the ledger this run uses (PAYDESK_TEST_ENGINE).
// Default: 200 rows, 8 kills; PAYDESK_LONG=1: 200 rows, 30 kills. PAYDESK_SEED replays.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index';
import type { BatchRowForm } from '../../src/shared/contract';
import { payoutForm } from '../helpers/fixtures';
import { testDatabaseFor } from '../helpers/ledger';
import { tempDir } from '../helpers/temp-dir';
import { sleep } from '../helpers/poll';
import type { BatchChildConfig } from './helpers/batch-child';
import { killAllStarted, startChild, startCrashGateway, type RunningChild } from './helpers/child';
import { startLatencyProxy, type LatencyProxy } from './helpers/latency-proxy';
import { announceSeed, LONG, Rng, suiteSeed } from './helpers/seed';
import { countBy, gatewayState, integrityProblems, ledgerAt, ledgerCreated, ledgerIntegrityProblems, ledgerState, sameAmount, withLedger } from './helpers/stores';

const seed = suiteSeed();
const replay = announceSeed('crash-batch', seed);
const rng = new Rng(seed);
const ROWS = 200;
const KILLS = LONG ? 30 : 8;
const CHILD = path.join(import.meta.dirname, 'helpers', 'batch-child.ts');

const temp = tempDir('paydesk-crash-batch-');
let emulator: EmulatorHandle | undefined;
let proxy: LatencyProxy | undefined;

afterAll(async () => {
  await killAllStarted();
  await proxy?.close();
  await emulator?.close();
  temp.cleanup();
});


const METHODS = ['open_banking', 'crypto', 'fps'] as const;

/** 200 rows as the renderer maps them: batchable methods drawn by the seed, distinct amounts, own references. */
function batchPlan(r: Rng): { line: number; form: BatchRowForm }[] {
  return Array.from({ length: ROWS }, (_, i) => {
    const method = r.pick(METHODS);
    const amount = method === 'crypto' ? `0.${String(1_000_000_007 + i * 7919).slice(-10)}` : `${10 + i}.${String((i * 37) % 100).padStart(2, '0')}`;
    const form = payoutForm(method, { amount, reference: `crash-batch-${seed}-${i + 1}`, email: `payee${i}@example.com` });
    return { line: i + 2, form: { ...form, customer: { ...form.customer, lastName: `Lima${i}` } } };
  });
}

const totalSends = () => [...(proxy?.sendsPerKey.values() ?? [])].reduce((a, b) => a + b, 0);

describe('crash safety of a CSV payout batch (SIGKILL at random points, then resume)', () => {
  it(
    'leaves every batch item at the gateway exactly once, the ledger in agreement and both files intact',
    async () => {
      const started = Date.now();
      const emulatorFile = path.join(temp.dir, 'gateway.sqlite');
      emulator = await startCrashGateway(emulatorFile, { rateLimit: { burst: 400, refillPerSecond: 400 } });
      const proxyRng = rng.fork(1);
      proxy = await startLatencyProxy(new URL(emulator.baseUrl).origin, () => proxyRng.int(10, 120));
      const rows = batchPlan(rng.fork(2));
      const dataDir = path.join(temp.dir, 'data');
      const ledger = await ledgerAt(dataDir);
      const config: BatchChildConfig = {
        dataDir,
        database: await testDatabaseFor(dataDir),
        logFile: path.join(temp.dir, 'core.log'),
        gateway: { baseUrl: proxy.baseUrl, adminUrl: emulator.adminUrl, hostedUrl: emulator.hostedUrl, merchant: emulator.merchant },
        fileName: 'crash-batch.csv',
        rows,
        mode: 'exit',
        gatewayTimeoutMs: 3_000,
      };
      const configFile = path.join(temp.dir, 'child.json');
      writeFileSync(configFile, JSON.stringify(config));

      const killRng = rng.fork(3);
      const kills: string[] = [];
      let cutMidSend = 0;
      let resumeCalls = 0;
      let finishedEarly = false;
      for (let run = 0; run < KILLS; run++) {
        const child: RunningChild = startChild(configFile, run, CHILD);
        if (killRng.chance(0.2)) {
          // Anywhere from start-up (migrations, recovery, the upload) into the first sends.
          const after = killRng.int(0, 2_500);
          await Promise.race([sleep(after), child.exited]);
          kills.push(`run ${run}: ${after} ms after spawn`);
        } else {
          // Right after the n-th create of this run went out: answers held back, items in flight.
          const nth = killRng.int(1, LONG ? 10 : 25);
          const delay = killRng.int(0, 60);
          const base = totalSends();
          const deadline = Date.now() + 30_000;
          while (totalSends() - base < nth && child.process.exitCode === null && Date.now() < deadline) await sleep(2);
          await sleep(delay);
          kills.push(`run ${run}: ${delay} ms after send #${nth}`);
        }
        const exit = await child.kill('SIGKILL');
        resumeCalls += child.lines.filter((l) => l.event === 'resuming').length;
        if (child.lines.some((l) => l.event === 'failed')) throw new Error(`${replay}: child run ${run} failed: ${JSON.stringify(child.lines.at(-1))}\n${child.stderr()}`);
        if (exit.code === 0) {
          finishedEarly = true;
          break;
        }
        // A kill before the core created its ledger leaves nothing to check or count.
        if (!(await ledgerCreated(ledger))) continue;
        expect(await ledgerIntegrityProblems(ledger), `${replay}: ledger after kill of run ${run}`).toEqual([]);
        cutMidSend += await withLedger(ledger, async (db) => (await db.get<{ n: number }>("SELECT count(*) AS n FROM batch_items WHERE state = 'sending'"))?.n ?? 0);
      }

      // A last run without a kill settles the batch and stays up until the payouts' notifications
      // have been received and confirmed by status reads.
      const lastFile = path.join(temp.dir, 'child-last.json');
      writeFileSync(lastFile, JSON.stringify({ ...config, mode: 'serve' } satisfies BatchChildConfig));
      const last = startChild(lastFile, KILLS, CHILD);
      const done = await last.waitFor((l) => l.event === 'done' || l.event === 'failed', 90_000);
      expect(done.event, `${replay}: ${JSON.stringify(done)}\n${last.stderr()}`).toBe('done');
      const settledDeadline = Date.now() + 30_000;
      const payoutsSettled = async () => {
        const payouts = (await ledgerState(ledger)).payouts;
        return payouts.length === ROWS && payouts.every((p) => p.status_code === 'P200' && p.claim_state === 'verified');
      };
      while (!(await payoutsSettled()) && Date.now() < settledDeadline) await sleep(200);
      const exit = await last.kill('SIGTERM');
      expect(exit.code, `${replay}: last run exit`).toBe(0);

      const gateway = gatewayState(emulatorFile);
      const recorded = await ledgerState(ledger);
      const { items, batches } = await withLedger(ledger, async (db) => ({
        items: await db.all<{ merchant_reference: string; state: string; idempotency_key: string | null; payout_row_id: number | null; amount: string; currency: string }>(
          'SELECT merchant_reference, state, idempotency_key, payout_row_id, amount, currency FROM batch_items ORDER BY line',
        ),
        batches: await db.all<{ id: number; state: string }>('SELECT id, state FROM batches'),
      }));
      const problems: string[] = [];

      expect(batches, `${replay}: one batch, done`).toEqual([{ id: batches[0]?.id, state: 'done' }]);
      expect(items.length, `${replay}: batch items`).toBe(ROWS);
      expect(countBy(items, (i) => i.state), `${replay}: item states`).toEqual(new Map([['sent', ROWS]]));

      // Exactly once at the gateway: one payout per item reference, bound to one Idempotency-Key, the item's.
      const held = countBy(gateway.payouts, (p) => p.merchant_reference);
      const keysPerRef = countBy(gateway.keys, (k) => k.reference ?? '(none)');
      const gatewayKey = new Map(gateway.keys.map((k) => [k.reference, k.key]));
      for (const row of rows) {
        const ref = String(row.form.merchantReference);
        if (held.get(ref) !== 1) problems.push(`${ref}: the gateway holds ${held.get(ref) ?? 0}`);
        if (keysPerRef.get(ref) !== 1) problems.push(`${ref}: ${keysPerRef.get(ref) ?? 0} Idempotency-Keys bound at the gateway`);
      }
      expect(gateway.payouts.length, `${replay}: nothing beyond the batch at the gateway`).toBe(ROWS);
      expect(gateway.payins.length).toBe(0);

      // The ledger agrees: one payout row and one settled attempt per item, same key, id, amount, currency, status.
      const payoutRows = new Map(recorded.payouts.map((p) => [p.id, p]));
      const attemptsByRef = new Map<string, typeof recorded.attempts>();
      for (const a of recorded.attempts) attemptsByRef.set(a.reference, [...(attemptsByRef.get(a.reference) ?? []), a]);
      const gatewayRow = new Map(gateway.payouts.map((p) => [p.merchant_reference, p]));
      const planned = new Map(rows.map((r) => [String(r.form.merchantReference), r.form]));
      for (const item of items) {
        const ref = item.merchant_reference;
        const row = item.payout_row_id === null ? undefined : payoutRows.get(item.payout_row_id);
        const attempts = attemptsByRef.get(ref) ?? [];
        const at = gatewayRow.get(ref);
        const form = planned.get(ref);
        if (!form) problems.push(`${ref}: an item the file did not have`);
        if (!row) {
          problems.push(`${ref}: no payout row`);
          continue;
        }
        if (row.reference !== ref) problems.push(`${ref}: the item's payout row is ${row.reference}`);
        if (attempts.length !== 1) problems.push(`${ref}: ${attempts.length} attempts in the ledger`);
        if (attempts[0]?.state !== 'succeeded') problems.push(`${ref}: attempt ${attempts[0]?.state}`);
        if (attempts[0]?.idempotency_key !== item.idempotency_key) problems.push(`${ref}: item key ≠ attempt key`);
        if (item.idempotency_key !== gatewayKey.get(ref)) problems.push(`${ref}: item key ≠ the key the gateway bound`);
        if (!at) continue;
        if (row.gateway_id !== at.payout_id) problems.push(`${ref}: ledger id ${row.gateway_id} ≠ gateway ${at.payout_id}`);
        if (!sameAmount(row.amount, at.amount) || !sameAmount(item.amount, at.amount) || (form && !sameAmount(String(form.amount), at.amount))) problems.push(`${ref}: amount ${row.amount} / item ${item.amount} vs gateway ${at.amount}`);
        if (row.currency !== at.currency || item.currency !== at.currency) problems.push(`${ref}: currency ${row.currency} vs ${at.currency}`);
        if (row.status_code !== at.status_code) problems.push(`${ref}: status ${row.status_code} vs gateway ${at.status_code}`);
        if (row.mismatch) problems.push(`${ref}: flagged mismatch`);
      }
      expect(recorded.payouts.length, `${replay}: ledger payout rows`).toBe(ROWS);
      expect(problems, `${replay}\nkills: ${kills.join('; ')}`).toEqual([]);

      expect(await ledgerIntegrityProblems(ledger), `${replay}: ledger integrity`).toEqual([]);
      expect(integrityProblems(emulatorFile), `${replay}: gateway integrity`).toEqual([]);

      const resends = [...proxy.sendsPerKey.values()].filter((n) => n > 1).length;
      resumeCalls += last.lines.filter((l) => l.event === 'resuming').length;
      const logErrors = existsSync(config.logFile) ? readFileSync(config.logFile, 'utf8').split('\n').filter((l) => / error /.test(l)) : [];
      console.log(
        `crash-batch: ${ROWS} rows, ${kills.length} kills${finishedEarly ? ' (batch finished early)' : ''}, ${cutMidSend} items cut off mid-send, ` +
          `${resends} keys sent more than once, ${resumeCalls} 'batches:resume' calls, ${logErrors.length} error lines in the core's log, ${Date.now() - started} ms` +
          `\nkills: ${kills.join('; ')}${logErrors.length ? `\nfirst log errors:\n${logErrors.slice(0, 5).join('\n')}` : ''}`,
      );
      // The kills did land mid-send: items were found "sending" after a kill and settled under their key.
      if (!finishedEarly) expect(cutMidSend, `${replay}: no kill landed mid-send (kills: ${kills.join('; ')})`).toBeGreaterThan(0);
    },
    LONG ? 900_000 : 120_000,
  );
});
