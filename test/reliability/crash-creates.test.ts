// Crashes during single creates: a Paydesk core in a child process creates pay-ins and payouts
// one by one through the contract and is killed with SIGKILL at random points (many of them
// while a create call is on the wire: the gateway has acted, the answer is held back by a proxy),
// then started again on the same data directory, repeatedly. Each restart turns attempts left
// "sending" into "unknown" and settles them with a status read or a same-key resend. At the end
// the gateway holds each payment exactly once, under the one Idempotency-Key the ledger recorded,
// the ledger agrees with it (ids, amounts, statuses), the gateway's file passes integrity_check and
// the ledger is intact (ledgerIntegrityProblems). On both engines: the child opens the ledger this
// run uses (PAYDESK_TEST_ENGINE).
// Default: ~60 creates and 6 kills; PAYDESK_LONG=1: 400 creates and 40 kills. PAYDESK_SEED replays.
// (The payout CSV batch variant is test/reliability/crash-batch.test.ts.)
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import keytar from 'keytar';
import { afterAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index';
import { testDatabaseFor } from '../helpers/ledger';
import { tempDir } from '../helpers/temp-dir';
import { sleep } from '../helpers/poll';
import { killAllStarted, startChild, startCrashGateway, writeConfig, type RunningChild } from './helpers/child';
import type { ChildConfig } from './helpers/core-child';
import { startLatencyProxy, type LatencyProxy } from './helpers/latency-proxy';
import { crashPlan } from './helpers/plan';
import { announceSeed, LONG, Rng, suiteSeed } from './helpers/seed';
import { countBy, gatewayState, integrityProblems, ledgerAt, ledgerIntegrityProblems, ledgerIntegrityProblemsAfterKill, ledgerState, sameAmount } from './helpers/stores';

/** The end of the child's log, shown with a failure. */
const logTail = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').slice(-4000) : '(no log)');

const seed = suiteSeed();
const replay = announceSeed('crash-creates', seed);
const rng = new Rng(seed);
const SIZE = LONG ? { payins: 200, payouts: 200, kills: 40 } : { payins: 30, payouts: 30, kills: 6 };

const temp = tempDir('paydesk-crash-');
const service = `PaydeskCrash-${randomUUID()}`;
let emulator: EmulatorHandle | undefined;
let proxy: LatencyProxy | undefined;

afterAll(async () => {
  await killAllStarted();
  await proxy?.close();
  await emulator?.close();
  for (const credential of await keytar.findCredentials(service)) await keytar.deletePassword(service, credential.account);
  temp.cleanup();
});


describe('crash safety of single creates (SIGKILL at random points, then resume)', () => {
  it(
    'leaves every pay-in and payout at the gateway exactly once, the ledger in agreement and both files intact',
    async () => {
      const started = Date.now();
      const emulatorFile = path.join(temp.dir, 'gateway.sqlite');
      emulator = await startCrashGateway(emulatorFile);
      const proxyRng = rng.fork(1);
      const latencyProxy = await startLatencyProxy(new URL(emulator.baseUrl).origin, () => proxyRng.int(10, 80));
      proxy = latencyProxy;
      const plan = crashPlan(rng.fork(2), seed, SIZE.payins, SIZE.payouts);
      const dataDir = path.join(temp.dir, 'data');
      const ledgerAddress = await ledgerAt(dataDir);
      const config: ChildConfig = {
        dataDir,
        database: await testDatabaseFor(dataDir),
        logFile: path.join(temp.dir, 'core.log'),
        keychainService: service,
        gateway: { baseUrl: proxy.baseUrl, adminUrl: emulator.adminUrl, hostedUrl: emulator.hostedUrl, merchant: emulator.merchant },
        plan,
        mode: 'exit',
        paceMs: 0,
        needsSigningKey: false,
        verificationRateLimit: { burst: 200, refillPerSecond: 200 },
        gatewayTimeoutMs: 3_000,
      };
      const configFile = writeConfig(path.join(temp.dir, 'child.json'), config);

      const killRng = rng.fork(3);
      const kills: string[] = [];
      let unknownAtStart = 0;
      let preparedAtStart = 0;
      let finishedEarly = false;
      // One kill is made sure to land mid-create: the random draws alone once put five kills at
      // start-up and the sixth after its answer (seed 1267279272), and nothing was tested. The last
      // run, unless a kill already landed so, is killed as soon as the proxy has a create in hand:
      // the gateway acts on it, and its answer is held back at least 10 ms.
      const sends = () => [...latencyProxy.sendsPerKey.values()].reduce((a, b) => a + b, 0);
      for (let run = 0; run < SIZE.kills; run++) {
        const child: RunningChild = startChild(configFile, run);
        const ready = child.waitFor((l) => l.event === 'ready', 30_000);
        if (run === SIZE.kills - 1 && unknownAtStart + preparedAtStart === 0) {
          const before = sends();
          const deadline = Date.now() + 60_000;
          let exited = false;
          void child.exited.then(() => (exited = true));
          while (sends() === before && !exited && Date.now() < deadline) await sleep(1);
          kills.push(`run ${run}: as the proxy received a create`);
        } else if (killRng.chance(0.2)) {
          // Anywhere from start-up (migrations, recovery) into the first creates.
          const after = killRng.int(0, 1_500);
          await Promise.race([sleep(after), child.exited]);
          kills.push(`run ${run}: ${after} ms after spawn`);
        } else {
          // Right after a create begins: before, during or after the request, while its answer is held back.
          const nth = killRng.int(1, LONG ? 12 : 4);
          const delay = killRng.int(0, 60);
          let count = 0;
          await Promise.race([child.waitFor((l) => l.event === 'creating' && ++count === nth, 60_000).then(() => sleep(delay)), child.exited]);
          kills.push(`run ${run}: ${delay} ms after create #${nth}`);
        }
        const exit = await child.kill('SIGKILL');
        const readyLine = child.lines.find((l) => l.event === 'ready') as { attempts?: Record<string, number> } | undefined;
        void ready.catch(() => undefined);
        unknownAtStart += readyLine?.attempts?.unknown ?? 0;
        preparedAtStart += readyLine?.attempts?.prepared ?? 0;
        if (child.lines.some((l) => l.event === 'failed')) throw new Error(`${replay}: child run ${run} failed: ${JSON.stringify(child.lines.at(-1))}\n${child.stderr()}\ncore log (end):\n${logTail(path.join(temp.dir, 'core.log'))}`);
        if (exit.code === 0) {
          finishedEarly = true;
          break;
        }
        expect(await ledgerIntegrityProblemsAfterKill(ledgerAddress), `${replay}: ledger after kill of run ${run}`).toEqual([]);
      }

      // A last run without a kill settles everything, creates the rest and stays up until the
      // payouts' notifications have been received and verified.
      const lastConfig = writeConfig(path.join(temp.dir, 'child-last.json'), { ...config, mode: 'serve' });
      const last = startChild(lastConfig, SIZE.kills);
      const done = await last.waitFor((l) => l.event === 'done' || l.event === 'failed', 120_000);
      expect(done.event, `${replay}: ${JSON.stringify(done)}\n${last.stderr()}`).toBe('done');
      const lastReady = last.lines.find((l) => l.event === 'ready') as { attempts?: Record<string, number> } | undefined;
      unknownAtStart += lastReady?.attempts?.unknown ?? 0;
      preparedAtStart += lastReady?.attempts?.prepared ?? 0;
      const settledDeadline = Date.now() + 30_000;
      const payoutsSettled = async () => {
        const payouts = (await ledgerState(ledgerAddress)).payouts;
        return payouts.length === SIZE.payouts && payouts.every((p) => p.status_code === 'P200' && p.claim_state === 'verified');
      };
      while (!(await payoutsSettled()) && Date.now() < settledDeadline) await sleep(200);
      const exit = await last.kill('SIGTERM');
      expect(exit.code, `${replay}: last run exit`).toBe(0);

      const gateway = gatewayState(emulatorFile);
      const ledger = await ledgerState(ledgerAddress);
      const planned = new Map(plan.map((item) => [item.ref, item]));
      const amountOf = (ref: string) => String((planned.get(ref)?.form as { amount?: string }).amount);

      // Exactly once at the gateway: one payment per reference, bound to one Idempotency-Key.
      const gatewayPayins = countBy(gateway.payins, (p) => p.request_id);
      const gatewayPayouts = countBy(gateway.payouts, (p) => p.merchant_reference);
      const keysPerRef = countBy(gateway.keys, (k) => k.reference ?? '(none)');
      const problems: string[] = [];
      for (const item of plan) {
        const held = item.kind === 'payout' ? gatewayPayouts.get(item.ref) : gatewayPayins.get(item.ref);
        if (held !== 1) problems.push(`${item.ref}: the gateway holds ${held ?? 0}`);
        if (keysPerRef.get(item.ref) !== 1) problems.push(`${item.ref}: ${keysPerRef.get(item.ref) ?? 0} Idempotency-Keys bound at the gateway`);
      }
      expect(gateway.payins.length + gateway.payouts.length, `${replay}: nothing beyond the plan`).toBe(plan.length);

      // The ledger agrees: one row and one settled attempt per reference, same key, ids, amounts, status.
      const rows = new Map([...ledger.payins, ...ledger.payouts].map((r) => [r.reference, r]));
      const attemptsByRef = new Map<string, typeof ledger.attempts>();
      for (const a of ledger.attempts) attemptsByRef.set(a.reference, [...(attemptsByRef.get(a.reference) ?? []), a]);
      const gatewayKey = new Map(gateway.keys.map((k) => [k.reference, k.key]));
      const gatewayRow = new Map<string, { id: string; amount: string; currency: string; status: string }>([
        ...gateway.payins.map((p) => [p.request_id, { id: p.payin_id, amount: p.amount, currency: p.currency, status: String(p.status_code) }] as const),
        ...gateway.payouts.map((p) => [p.merchant_reference, { id: p.payout_id, amount: p.amount, currency: p.currency, status: p.status_code }] as const),
      ]);
      for (const item of plan) {
        const row = rows.get(item.ref);
        const attempts = attemptsByRef.get(item.ref) ?? [];
        const held = gatewayRow.get(item.ref);
        if (!row) {
          problems.push(`${item.ref}: no ledger row`);
          continue;
        }
        if (attempts.length !== 1) problems.push(`${item.ref}: ${attempts.length} attempts in the ledger`);
        if (attempts[0]?.state !== 'succeeded') problems.push(`${item.ref}: attempt ${attempts[0]?.state}`);
        if (attempts[0]?.idempotency_key !== gatewayKey.get(item.ref)) problems.push(`${item.ref}: ledger key ≠ the key the gateway bound`);
        if (!held) continue;
        if (row.gateway_id !== held.id) problems.push(`${item.ref}: ledger id ${row.gateway_id} ≠ gateway ${held.id}`);
        if (!sameAmount(row.amount, held.amount) || !sameAmount(row.amount, amountOf(item.ref))) problems.push(`${item.ref}: amount ${row.amount} vs gateway ${held.amount}`);
        if (row.currency !== held.currency) problems.push(`${item.ref}: currency ${row.currency} vs ${held.currency}`);
        if (row.status_code !== held.status) problems.push(`${item.ref}: status ${row.status_code} vs gateway ${held.status}`);
        if (row.mismatch) problems.push(`${item.ref}: flagged mismatch`);
      }
      expect(rows.size, `${replay}: ledger rows`).toBe(plan.length);
      expect(problems, `${replay}\nkills: ${kills.join('; ')}`).toEqual([]);

      expect(await ledgerIntegrityProblems(ledgerAddress), `${replay}: ledger integrity`).toEqual([]);
      expect(integrityProblems(emulatorFile), `${replay}: gateway integrity`).toEqual([]);

      // The kills did land mid-create: attempts were found unknown / prepared at restart and settled.
      const resends = [...proxy.sendsPerKey.values()].filter((n) => n > 1).length;
      console.log(
        `crash-creates: ${plan.length} creates, ${kills.length} kills${finishedEarly ? ' (plan finished early)' : ''}, ` +
          `${unknownAtStart} unknown + ${preparedAtStart} prepared attempts at restart, ${resends} keys sent more than once, ${Date.now() - started} ms`,
      );
      if (!finishedEarly) expect(unknownAtStart + preparedAtStart, `${replay}: no kill landed in a create (kills: ${kills.join('; ')})`).toBeGreaterThan(0);
    },
    LONG ? 1_800_000 : 150_000,
  );
});
