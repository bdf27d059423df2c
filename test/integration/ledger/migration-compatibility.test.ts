// What each applied migration declares of the Paydesk before it (migrations/index.ts,
// `compatibleWithPrevious`), recorded in schema_migrations.oldest_compatible, and what this build
// does with a ledger a newer Paydesk migrated further, on this run's engine:
//   - each migration records the oldest schema version that keeps running on it;
//   - a ledger recorded before the declarations were (no such column) gets them at the next open;
//   - a newer step declared compatible: a desk (SQLite) still refuses the ledger untouched, a team
//     server (PostgreSQL) opens it and runs on it; a newer step not declared compatible is refused,
//     naming it.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { LedgerVersionError, openLedger, schemaVersion, type LedgerAddress } from '../../../src/main/ledger/connection';
import { engineMigrations, migrations, postgresMigrations } from '../../../src/main/ledger/migrations/index';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { freshLedger, openReader, stepsWithNext, testEngine } from '../../helpers/ledger';
import { cleanupsAfterEach } from '../../helpers/cleanups';

const cleanups = cleanupsAfterEach();

const mine = testEngine === 'sqlite' ? migrations : postgresMigrations;
const newest = mine.at(-1)!.version;

async function ledger(): Promise<LedgerAddress> {
  const { address, remove } = await freshLedger();
  cleanups.push(remove);
  return address;
}

/** The ledger opened by the next Paydesk, whose one more step is declared compatible with this build or not. */
async function migrateByNext(address: LedgerAddress, compatible: boolean): Promise<void> {
  const next = engineMigrations(stepsWithNext(compatible));
  await (await openLedger(address, { migrations: next.sqlite, postgresMigrations: next.postgres })).close();
}

async function recorded(address: LedgerAddress): Promise<{ version: number; name: string; oldest_compatible: number | null }[]> {
  const reader = await openReader(address);
  try {
    return await reader.all('SELECT version, name, oldest_compatible FROM schema_migrations ORDER BY version');
  } finally {
    await reader.close();
  }
}

describe(`what each migration declares of the Paydesk before it (${testEngine})`, () => {
  it('records, for each migration, the oldest schema version that keeps running with it', async () => {
    const address = await ledger();
    let oldest = 0;
    const expected = mine.map((m) => ({ version: m.version, name: m.name, oldest_compatible: (oldest = m.compatibleWithPrevious ? oldest : m.version) }));
    expect(await recorded(address)).toEqual(expected);
    // Compatible steps chain: the last incompatible one is where this build's compatibility starts.
    expect(expected.at(-1)?.oldest_compatible).toBe(Math.max(...mine.filter((m) => !m.compatibleWithPrevious).map((m) => m.version)));
  });

  it('declares the migrations of a ledger recorded before the declarations were, at its next open', async () => {
    const address = await ledger();
    const before = await recorded(address);
    // As Paydesk before this wrote it: no column for the declaration.
    const drop = 'ALTER TABLE schema_migrations DROP COLUMN oldest_compatible';
    if ('file' in address) new Database(address.file).exec(drop).close();
    else await openReader(address).then(async (writer) => (await writer.run(drop), await writer.close()));
    await (await openLedger(address)).close();
    expect(await recorded(address)).toEqual(before);
  });

  it(`${testEngine === 'sqlite' ? 'refuses, untouched,' : 'opens and runs on'} a ledger a newer Paydesk migrated with a step declared compatible`, async () => {
    const address = await ledger();
    await migrateByNext(address, true);
    const before = await recorded(address);
    expect(before.at(-1)).toEqual({ version: newest + 1, name: 'next_step', oldest_compatible: expect.any(Number) });
    if (testEngine === 'sqlite') {
      await expect(openLedger(address)).rejects.toThrow(LedgerVersionError);
      await expect(openLedger(address)).rejects.toThrow(`newer Paydesk (schema version ${newest + 1}, this build knows up to ${newest})`);
    } else {
      const db = await openLedger(address);
      try {
        expect(await schemaVersion(db)).toBe(newest + 1);
        // This build's repositories work on it.
        const profile = await createRepositories(db).profiles.create({ name: 'After', environment: 'local', baseUrl: 'http://127.0.0.1:9/api/v2', merchantId: 'm', merchantSiteId: 's' });
        expect(profile.name).toBe('After');
      } finally {
        await db.close();
      }
    }
    expect(await recorded(address)).toEqual(before);
  });

  it.runIf(testEngine === 'postgres')('lets go of the tables a running instance holds and tries again, never breaking its transaction', async () => {
    const address = await ledger();
    const running = await openReader(address);
    cleanups.push(() => running.close());
    // A running instance's transaction holds payouts, and then wants attempts, which the migration
    // (attempts, then payouts) took meanwhile: waiting for each other, one of them had to give way.
    let release!: () => void;
    const holding = running.transaction(async () => {
      await running.all('SELECT id FROM payouts FOR SHARE');
      await new Promise<void>((resolve) => (release = resolve));
      return running.all('SELECT id FROM attempts');
    });
    const migrating = migrateByNext(address, true);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    release();
    await expect(holding).resolves.toEqual([]);
    await migrating;
    expect((await recorded(address)).at(-1)?.name).toBe('next_step');
  });

  it('refuses, untouched, a ledger a newer Paydesk migrated with a step not declared compatible, naming it', async () => {
    const address = await ledger();
    await migrateByNext(address, false);
    const before = await recorded(address);
    expect(before.at(-1)).toEqual({ version: newest + 1, name: 'next_step', oldest_compatible: newest + 1 });
    await expect(openLedger(address)).rejects.toThrow(LedgerVersionError);
    const named = testEngine === 'postgres' ? `; its migration ${newest + 1} ("next_step") cannot run with this build` : '';
    await expect(openLedger(address)).rejects.toThrow(`newer Paydesk (schema version ${newest + 1}, this build knows up to ${newest}${named})`);
    expect(await recorded(address)).toEqual(before);
  });
});
