// Notification durability. The emulator (this process, state in a file) sends
// every final result to a Paydesk core running in a child process, while its admin API switches
// delivery faults on and off at random (duplicates, newest-first reordering, delays, dropped,
// cut and 503 deliveries, failing creates, forced 429 on status reads) and the child is killed
// with SIGKILL and restarted at random. At the end every notification the gateway sent is in the
// ledger exactly once by dedupe key (every further copy kept as a duplicate), every one the
// gateway saw acknowledged is on disk, nothing is pending, orphaned or malformed, every
// transaction is final and verified by a status read, the gateway's file passes integrity_check
// and the ledger is intact (ledgerIntegrityProblems). On both engines: the child opens the ledger
// this run uses (PAYDESK_TEST_ENGINE).
// Default: 180 distinct notifications (~300-500 received) and 5 kills; PAYDESK_LONG=1: 2,200
// distinct (thousands received) and 25 kills. PAYDESK_SEED replays.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import keytar from 'keytar';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index';
import { testDatabaseFor } from '../helpers/ledger';
import { tempDir } from '../helpers/temp-dir';
import { sleep } from '../helpers/poll';
import { killAllStarted, startChild, writeConfig } from './helpers/child';
import type { ChildConfig } from './helpers/core-child';
import { notificationPlan } from './helpers/plan';
import { announceSeed, LONG, Rng, suiteSeed } from './helpers/seed';
import { countBy, gatewayState, integrityProblems, ledgerAt, ledgerIntegrityProblems, ledgerIntegrityProblemsAfterKill, ledgerState, type GatewayState, type LedgerState } from './helpers/stores';

const seed = suiteSeed();
const replay = announceSeed('notification-durability', seed);
const rng = new Rng(seed);
const SIZE = LONG ? { payins: 1_200, payouts: 500, tokenizations: 250, kills: 25 } : { payins: 90, payouts: 40, tokenizations: 25, kills: 5 };

const temp = tempDir('paydesk-notify-');
const service = `PaydeskNotify-${randomUUID()}`;
const emulatorWarnings: string[] = [];
let emulator: EmulatorHandle | undefined;
let chaosTimer: NodeJS.Timeout | undefined;

afterAll(async () => {
  clearTimeout(chaosTimer);
  await killAllStarted();
  await emulator?.close();
  for (const credential of await keytar.findCredentials(service)) await keytar.deletePassword(service, credential.account);
  temp.cleanup();
});


async function setFaults(adminUrl: string, method: 'PUT' | 'DELETE', body?: unknown): Promise<void> {
  const response = await fetch(`${adminUrl}/faults`, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  if (!response.ok) throw new Error(`faults ${method}: HTTP ${response.status} ${await response.text()}`);
}

/** The dedupe key Paydesk's listener gives this delivery: event | transaction id | status. */
function dedupeKeyOf(delivery: GatewayState['deliveries'][number]): string {
  const body = JSON.parse(delivery.body) as { payin_id?: string; payout_id?: string; status_code?: unknown };
  return `${delivery.event}|${body.payout_id ?? body.payin_id}|${String(body.status_code)}`;
}

function expectedDeliveries(): number {
  return SIZE.payins + SIZE.payouts + 2 * SIZE.tokenizations;
}

function converged(gateway: GatewayState, ledger: LedgerState): boolean {
  if (gateway.deliveries.length < expectedDeliveries() || gateway.deliveries.some((d) => d.state !== 'delivered')) return false;
  if (ledger.notifications.some((n) => n.outcome === 'pending' || n.outcome === 'orphan')) return false;
  return [...ledger.payins, ...ledger.payouts].every((t) => t.final === 1 && t.claim_state === 'verified');
}

describe('notification durability under faults and SIGKILL', () => {
  it(
    'keeps every notification exactly once and brings every transaction to its final, verified state',
    async () => {
      const started = Date.now();
      const emulatorFile = path.join(temp.dir, 'gateway.sqlite');
      emulator = await startEmulator({
        dataFile: emulatorFile,
        logger: { info: () => {}, warn: (m, f) => emulatorWarnings.push(`${m} ${JSON.stringify(f)}`), error: (m, f) => emulatorWarnings.push(`ERROR ${m} ${JSON.stringify(f)}`) },
        scenarioTiming: { payinCompleteMs: 100, payoutProcessingMs: 100, payoutFinalMs: 300 },
        // Enough attempts that no delivery is abandoned while the listener is down (~2 minutes of retries).
        delivery: { firstAttemptDelayMs: 20, firstRetryDelayMs: 150, backoffFactor: 1.5, maxDelayMs: 1_500, maxAttempts: 100, attemptTimeoutMs: 3_000 },
        rateLimit: { burst: 200, refillPerSecond: 200 },
      });
      const { adminUrl } = emulator;
      const plan = notificationPlan(rng.fork(1), seed, SIZE.payins, SIZE.payouts, SIZE.tokenizations);
      const dataDir = path.join(temp.dir, 'data');
      const ledgerAddress = await ledgerAt(dataDir);
      const config: ChildConfig = {
        dataDir,
        database: await testDatabaseFor(dataDir),
        logFile: path.join(temp.dir, 'core.log'),
        keychainService: service,
        gateway: { baseUrl: emulator.baseUrl, adminUrl, hostedUrl: emulator.hostedUrl, merchant: emulator.merchant },
        plan,
        mode: 'serve',
        paceMs: LONG ? 5 : 15,
        needsSigningKey: true,
        verificationRateLimit: { burst: 200, refillPerSecond: 200 },
        gatewayTimeoutMs: 3_000,
      };
      const configFile = writeConfig(path.join(temp.dir, 'child.json'), config);

      // Faults change at random every few hundred milliseconds until the last run.
      const chaosRng = rng.fork(2);
      let chaosChanges = 0;
      const chaos = async () => {
        const modes = ['drop', 'abort', 'wrong_status'] as const;
        await setFaults(adminUrl, 'PUT', {
          notifications: {
            duplicate: chaosRng.int(1, 2),
            reorder: chaosRng.chance(0.4),
            reorder_window_ms: chaosRng.int(50, 400),
            fail_next: chaosRng.int(0, 8),
            fail_mode: chaosRng.pick(modes),
            delay_ms: chaosRng.int(0, 600),
          },
          api: { create_errors: chaosRng.chance(0.2) ? chaosRng.int(1, 2) : 0, force_rate_limit: chaosRng.chance(0.3) ? chaosRng.int(1, 5) : 0 },
        });
        chaosChanges++;
      };
      const scheduleChaos = () => {
        chaosTimer = setTimeout(() => void chaos().then(scheduleChaos, () => undefined), chaosRng.int(200, 600));
      };
      await chaos();
      scheduleChaos();

      const killRng = rng.fork(3);
      const kills: string[] = [];
      for (let run = 0; run < SIZE.kills; run++) {
        const child = startChild(configFile, run);
        // The first run gets its signing key registered before anything can kill it.
        await child.waitFor((l) => l.event === (run === 0 ? 'settled' : 'ready') || l.event === 'failed', 60_000);
        const uptime = killRng.int(300, 2_500);
        await Promise.race([sleep(uptime), child.exited]);
        const exit = await child.kill('SIGKILL');
        const failed = child.lines.find((l) => l.event === 'failed');
        if (failed) throw new Error(`${replay}: child run ${run} failed: ${JSON.stringify(failed)}\n${child.stderr()}`);
        kills.push(`run ${run}: killed after ${uptime} ms (${exit.signal ?? exit.code})`);
        expect(await ledgerIntegrityProblemsAfterKill(ledgerAddress), `${replay}: ledger after kill of run ${run}`).toEqual([]);
        await sleep(killRng.int(0, 400)); // the gateway meets a closed port meanwhile
      }

      // The last run: no more kills and no more failures (duplicates still come); it must converge.
      clearTimeout(chaosTimer);
      await setFaults(adminUrl, 'DELETE');
      await setFaults(adminUrl, 'PUT', { notifications: { duplicate: 2 } });
      const last = startChild(configFile, SIZE.kills);
      const done = await last.waitFor((l) => l.event === 'done' || l.event === 'failed', 180_000);
      expect(done.event, `${replay}: ${JSON.stringify(done)}\n${last.stderr()}`).toBe('done');
      const deadline = Date.now() + (LONG ? 300_000 : 60_000);
      let gateway = gatewayState(emulatorFile);
      let ledger = await ledgerState(ledgerAddress);
      while (!converged(gateway, ledger) && Date.now() < deadline) {
        await sleep(250);
        gateway = gatewayState(emulatorFile);
        ledger = await ledgerState(ledgerAddress);
      }
      const exit = await last.kill('SIGTERM');
      expect(exit.code, `${replay}: last run exit`).toBe(0);
      gateway = gatewayState(emulatorFile);
      ledger = await ledgerState(ledgerAddress);

      // The gateway did its part: every transaction exists once, every notification was delivered.
      expect(gateway.payins.length + gateway.payouts.length, `${replay}: transactions at the gateway`).toBe(plan.length);
      expect(gateway.deliveries.length, `${replay}: deliveries`).toBe(expectedDeliveries());
      expect(gateway.deliveries.filter((d) => d.state !== 'delivered').map((d) => `${d.id} ${d.state}`), `${replay}: undelivered`).toEqual([]);

      // Every notification exactly once in the ledger by dedupe key; every copy beyond it a duplicate.
      const problems: string[] = [];
      const rowsByKey = new Map<string, LedgerState['notifications']>();
      for (const n of ledger.notifications) rowsByKey.set(n.dedupe_key ?? '(none)', [...(rowsByKey.get(n.dedupe_key ?? '(none)') ?? []), n]);
      for (const delivery of gateway.deliveries) {
        const key = dedupeKeyOf(delivery);
        const rows = rowsByKey.get(key) ?? [];
        const originals = rows.filter((r) => r.outcome !== 'duplicate');
        if (originals.length !== 1) problems.push(`${key}: ${originals.length} non-duplicate rows (${originals.map((r) => r.outcome).join(', ')})`);
        else if (originals[0]?.outcome !== 'applied') problems.push(`${key}: ${originals[0]?.outcome}`);
        // Stored before acknowledged: the gateway saw no 2xx the ledger does not hold.
        const acked = gateway.acked.get(delivery.id) ?? 0;
        const stored = rows.filter((r) => r.answer_status === 200).length;
        if (stored < acked) problems.push(`${key}: ${acked} acknowledgements but ${stored} rows`);
      }
      const expectedKeys = new Set(gateway.deliveries.map(dedupeKeyOf));
      for (const key of rowsByKey.keys()) if (!expectedKeys.has(key)) problems.push(`ledger key ${key} was never sent`);
      const outcomes = countBy(ledger.notifications, (n) => n.outcome);
      for (const bad of ['pending', 'orphan', 'malformed', 'mismatch']) if (outcomes.get(bad)) problems.push(`${outcomes.get(bad)} notifications ${bad}`);

      // Every transaction final and verified, and equal to what the gateway says.
      const gatewayStatus = new Map<string, string>([
        ...gateway.payins.map((p) => [p.request_id, String(p.status_code)] as const),
        ...gateway.payouts.map((p) => [p.merchant_reference, p.status_code] as const),
      ]);
      const transactions = [...ledger.payins, ...ledger.payouts];
      expect(transactions.length, `${replay}: ledger transactions`).toBe(plan.length);
      for (const t of transactions) {
        if (t.final !== 1 || t.claim_state !== 'verified' || t.mismatch) problems.push(`${t.reference}: final ${t.final}, claim ${t.claim_state}, mismatch ${t.mismatch}`);
        if (t.status_code !== gatewayStatus.get(t.reference)) problems.push(`${t.reference}: ledger ${t.status_code}, gateway ${gatewayStatus.get(t.reference)}`);
        if (t.last_notified_status !== t.status_code) problems.push(`${t.reference}: notified ${t.last_notified_status}, status ${t.status_code}`);
      }
      const attempts = countBy(ledger.attempts, (a) => a.reference);
      for (const item of plan) if (attempts.get(item.ref) !== 1) problems.push(`${item.ref}: ${attempts.get(item.ref) ?? 0} attempts`);
      expect(ledger.tokens, `${replay}: vaulted tokens`).toBe(SIZE.tokenizations);
      expect(problems.slice(0, 30), `${replay}\nkills: ${kills.join('; ')}\nemulator: ${emulatorWarnings.filter((w) => w.startsWith('ERROR')).slice(0, 5).join('\n')}`).toEqual([]);

      expect(await ledgerIntegrityProblems(ledgerAddress), `${replay}: ledger integrity`).toEqual([]);
      expect(integrityProblems(emulatorFile), `${replay}: gateway integrity`).toEqual([]);

      const received = ledger.notifications.length;
      const acks = [...gateway.acked.values()].reduce((a, b) => a + b, 0);
      const failedAttempts = emulatorWarnings.filter((w) => w.startsWith('notification attempt failed')).length;
      console.log(
        `notification-durability: ${plan.length} transactions, ${gateway.deliveries.length} notifications, ${received} received ` +
          `(${outcomes.get('duplicate') ?? 0} duplicates), ${acks} acknowledged, ${failedAttempts} failed delivery attempts, ` +
          `${kills.length} kills, ${chaosChanges} fault changes, ${Date.now() - started} ms`,
      );
      expect(received, `${replay}: duplicates were delivered`).toBeGreaterThan(gateway.deliveries.length);
      expect(failedAttempts, `${replay}: some deliveries failed and were retried`).toBeGreaterThan(0);
    },
    LONG ? 1_800_000 : 180_000,
  );
});
