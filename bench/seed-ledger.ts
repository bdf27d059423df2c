// Seeds a ledger file through the real repositories (profiles, payins, payouts, notifications),
// many rows per transaction, and reports the seeding rate. bench/run.ts caches the file so the
// later benchmarks of the same run (and `--reuse` runs) read the same ledger.
//   node --import tsx bench/seed-ledger.ts --out FILE [--payins N] [--payouts N] [--notifications N]
import { rmSync } from 'node:fs';
import { openLedger } from '../src/main/ledger/connection';
import type { SqliteEngine } from '../src/main/ledger/engine/sqlite';
import { createRepositories } from '../src/main/ledger/repositories/index';
import { arg, argText, log, prng, report, round, type Figure } from './lib';

export const SEED_START = Date.parse('2025-01-01T00:00:00Z');
/** Simulated time between two pay-ins: a million rows span about a year. */
export const SEED_STEP_MS = 30_000;
export const PAYIN_METHODS = ['credit_card', 'credit_card_ftd', 'open_banking', 'crypto', 'blik', 'googlepay', 'applepay', 'interac'] as const;
const PAYIN_CODES = ['100', '101', '200', '200', '200', '200', '302', '305', '500', '501', '517', '777'];
const PAYOUT_METHODS = ['open_banking', 'crypto', 'fps'] as const;
const PAYOUT_CODES = ['P100', 'P101', 'P200', 'P200', 'P200', 'C402', 'C403', 'C501'];
const CURRENCIES = ['EUR', 'USD', 'GBP', 'PLN', 'CAD'];
export const CUSTOMERS = 50_000;
const CHUNK = 20_000;

export interface SeedSizes {
  payins: number;
  payouts: number;
  notifications: number;
}

const amountFor = (method: string, rand: (n: number) => number) =>
  method === 'crypto' ? `0.${String(rand(99_999_999) + 1).padStart(8, '0')}` : `${rand(1000) + 1}.${String(rand(100)).padStart(2, '0')}`;

export async function seedLedger(file: string, sizes: SeedSizes): Promise<Figure[]> {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  let clock = SEED_START;
  const ledger = (await openLedger({ file }, { now: () => new Date(clock) })) as SqliteEngine;
  const repos = createRepositories(ledger, () => new Date(clock));
  const rand = prng(42);
  const profile = await repos.profiles.create({ name: 'bench', environment: 'local', baseUrl: 'http://127.0.0.1:9/api/v2', merchantId: 'bench-m', merchantSiteId: 'bench-s' });
  const figures: Figure[] = [];
  const started = performance.now();

  const timed = async (name: string, total: number, fill: (from: number, to: number) => Promise<void>) => {
    const t = performance.now();
    for (let from = 0; from < total; from += CHUNK) {
      await ledger.transaction(() => fill(from, Math.min(total, from + CHUNK)));
      if (from % 200_000 === 0 && from > 0) log(`${name}: ${from.toLocaleString('en')} rows`);
    }
    const seconds = (performance.now() - t) / 1000;
    figures.push({ name: `seed ${name}`, value: Math.round(total / Math.max(seconds, 1e-9)), unit: 'rows/s', note: `${total.toLocaleString('en')} rows in ${round(seconds, 1)} s` });
  };

  await timed('pay-ins', sizes.payins, async (from, to) => {
    for (let i = from; i < to; i++) {
      clock = SEED_START + i * SEED_STEP_MS + rand(1000);
      const method = PAYIN_METHODS[rand(PAYIN_METHODS.length)] as string;
      const record = await repos.payins.upsertFromCreate(
        { kind: 'payin', profileId: profile.id, requestId: `req-${i}`, method, amount: amountFor(method, rand), currency: CURRENCIES[rand(CURRENCIES.length)] as string, email: `user${rand(CUSTOMERS)}@example.com` },
        { payinId: `pid-${i}`, statusCode: PAYIN_CODES[rand(PAYIN_CODES.length)] as string, createdAt: new Date(clock).toISOString() },
      );
      // One in a thousand disagrees with the gateway: the reconciliation's exception lists are not empty.
      if (rand(1000) === 0) await repos.payins.noteConflict(record.id, 'amount differs from the notification', 'facts');
    }
  });

  const payoutStep = (sizes.payins * SEED_STEP_MS) / Math.max(1, sizes.payouts);
  await timed('payouts', sizes.payouts, async (from, to) => {
    for (let i = from; i < to; i++) {
      clock = SEED_START + Math.floor(i * payoutStep) + rand(1000);
      const method = PAYOUT_METHODS[rand(PAYOUT_METHODS.length)] as string;
      const record = await repos.payouts.upsertFromCreate(
        { profileId: profile.id, merchantReference: `ref-${i}`, method, amount: amountFor(method, rand), currency: method === 'fps' ? 'GBP' : 'EUR', email: `user${rand(CUSTOMERS)}@example.com` },
        { payoutId: `po-${i}`, statusCode: PAYOUT_CODES[rand(PAYOUT_CODES.length)] as string, createdAt: new Date(clock).toISOString() },
      );
      if (rand(1000) === 0) await repos.payouts.noteConflict(record.id, 'payout status contradicted', 'status');
    }
  });

  const notificationStep = (sizes.payins * SEED_STEP_MS) / Math.max(1, sizes.notifications);
  await timed('notifications', sizes.notifications, async (from, to) => {
    const batch = [];
    for (let i = from; i < to; i++) {
      clock = SEED_START + Math.floor(i * notificationStep);
      const n = rand(Math.max(1, sizes.payins));
      const body = Buffer.from(JSON.stringify({ event: 'v2_payin_notification', status_code: 200, request_id: `req-${n}`, payin_id: `pid-${n}`, amount: '10.00', currency: 'EUR' }));
      batch.push({
        profileId: profile.id, receivedAt: new Date(clock).toISOString(), sourceAddress: '127.0.0.1:40000', rawHeaders: ['content-type', 'application/json'],
        body, bodySize: body.length, bodyTruncated: false, answerStatus: 200, event: 'v2_payin_notification', transactionRef: `pid-${n}`,
        requestRef: `req-${n}`, statusCode: '200', dedupeKey: `v2_payin_notification:pid-${n}:200`, outcome: 'pending' as const, detail: null,
      });
    }
    const ids = await repos.notifications.insertMany(batch);
    // Already processed, as in a ledger that has been running: nothing waits to be applied at start-up.
    for (const [k, id] of ids.entries()) await repos.notifications.markOutcome(id, (from + k) % 50 === 0 ? 'duplicate' : 'applied', { payinRowId: 1 + rand(Math.max(1, sizes.payins)) });
  });

  const t = performance.now();
  ledger.db.exec('ANALYZE');
  ledger.db.pragma('wal_checkpoint(TRUNCATE)');
  const total = sizes.payins + sizes.payouts + sizes.notifications;
  const seconds = (performance.now() - started) / 1000;
  figures.push({ name: 'seed all tables', value: Math.round(total / seconds), unit: 'rows/s', note: `${total.toLocaleString('en')} rows in ${round(seconds, 1)} s (ANALYZE + checkpoint ${round((performance.now() - t) / 1000, 1)} s)` });
  await ledger.close();
  return figures;
}

if (process.argv[1] === import.meta.filename) {
  const out = argText('out', '');
  if (!out) throw new Error('usage: seed-ledger.ts --out FILE [--payins N] [--payouts N] [--notifications N]');
  report(await seedLedger(out, { payins: arg('payins', 1_000_000), payouts: arg('payouts', 200_000), notifications: arg('notifications', 1_000_000) }));
}
