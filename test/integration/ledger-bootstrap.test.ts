// Opening a ledger: the engine's durability settings, every migration applied once and recorded,
// a failing migration rolled back whole, and a ledger written by a newer Paydesk (or whose history
// diverges) refused untouched, on SQLite and on PostgreSQL; and two processes opening one fresh
// PostgreSQL database at once migrate it exactly once.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LedgerVersionError, openLedger, openSqliteFile, schemaVersion } from '../../src/main/ledger/connection';
import { migrations, postgresMigrations, type Declared, type Migration } from '../../src/main/ledger/migrations/index';
import { openReader, testEngine } from '../helpers/ledger';
import { waitFor } from '../helpers/poll';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { tempDir } from '../helpers/temp-dir';
import { cleanupsAfterEach } from '../helpers/cleanups';

const ROOT = path.resolve(__dirname, '../..');
const cleanups = cleanupsAfterEach();

function ledgerPath(): string {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  return path.join(dir, 'nested', 'ledger.sqlite');
}

// SQLite's own settings, file and catalogue.
describe.runIf(testEngine === 'sqlite')('ledger bootstrap (real SQLite file)', () => {
  it('creates the file with WAL, synchronous=FULL and foreign keys on', () => {
    const db = openSqliteFile({ file: ledgerPath() });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    db.close();
  });

  it('applies every numbered migration once and records it', async () => {
    const file = ledgerPath();
    await (await openLedger({ file }, { now: () => new Date('2026-01-02T03:04:05Z') })).close();
    const db = await openLedger({ file });
    try {
      const rows = await db.all('SELECT version, name, applied_at FROM schema_migrations ORDER BY version');
      expect(rows).toEqual(migrations.map((m) => ({ version: m.version, name: m.name, applied_at: '2026-01-02T03:04:05.000Z' })));
      expect(await schemaVersion(db)).toBe(migrations.at(-1)?.version);
    } finally {
      await db.close();
    }
  });

  it('rolls a failing migration back whole and records nothing for it', async () => {
    const file = ledgerPath();
    await (await openLedger({ file })).close();
    const broken: Declared<Migration> = {
      version: 99,
      name: 'broken',
      compatibleWithPrevious: true,
      up: (db) => {
        db.exec('CREATE TABLE half_done (id INTEGER)');
        throw new Error('boom');
      },
    };
    await expect(openLedger({ file }, { migrations: [...migrations, broken] })).rejects.toThrow('boom');
    const raw = new Database(file);
    expect(raw.prepare("SELECT name FROM sqlite_master WHERE name = 'half_done'").get()).toBeUndefined();
    expect(raw.prepare('SELECT MAX(version) AS v FROM schema_migrations').get()).toEqual({ v: migrations.at(-1)?.version });
    raw.close();
  });

  it('refuses a ledger written by a newer version, with a clear message, and leaves it unchanged', async () => {
    const file = ledgerPath();
    await (await openLedger({ file })).close();
    const raw = new Database(file);
    raw.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'from-the-future', 'x')").run();
    raw.pragma('wal_checkpoint(TRUNCATE)');
    raw.close();
    const before = readFileSync(file);
    await expect(openLedger({ file })).rejects.toThrow(LedgerVersionError);
    await expect(openLedger({ file })).rejects.toThrow(/newer Paydesk \(schema version 999/);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('refuses a ledger whose migration history diverges', async () => {
    const file = ledgerPath();
    await (await openLedger({ file })).close();
    const raw = new Database(file);
    raw.prepare("UPDATE schema_migrations SET name = 'something-else' WHERE version = 1").run();
    raw.close();
    await expect(openLedger({ file })).rejects.toThrow(/diverges/);
  });
});

describe.runIf(testEngine === 'postgres')('ledger bootstrap (a real PostgreSQL database)', () => {
  async function database(): Promise<TestDatabase> {
    const created = await createTestDatabase();
    cleanups.push(() => created.drop());
    return created;
  }

  /** The recorded migrations, read through a connection of its own. */
  async function recorded(url: string): Promise<{ version: number; name: string }[]> {
    const reader = await openReader({ url });
    try {
      return await reader.all('SELECT version, name FROM schema_migrations ORDER BY version');
    } finally {
      await reader.close();
    }
  }

  it('applies every PostgreSQL migration once and records it, and opening again changes nothing', async () => {
    const { url } = await database();
    await (await openLedger({ url }, { now: () => new Date('2026-01-02T03:04:05Z') })).close();
    const db = await openLedger({ url });
    try {
      expect(await db.all('SELECT version, name, applied_at FROM schema_migrations ORDER BY version')).toEqual(
        postgresMigrations.map((m) => ({ version: m.version, name: m.name, applied_at: '2026-01-02T03:04:05.000Z' })),
      );
      expect(await schemaVersion(db)).toBe(postgresMigrations.at(-1)?.version);
    } finally {
      await db.close();
    }
  });

  it('refuses a ledger written by a newer Paydesk, naming its version, and leaves it unchanged', async () => {
    const { url } = await database();
    await (await openLedger({ url })).close();
    const writer = await openReader({ url });
    try {
      await writer.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'from-the-future', 'x')");
    } finally {
      await writer.close();
    }
    const before = await recorded(url);
    await expect(openLedger({ url })).rejects.toThrow(LedgerVersionError);
    await expect(openLedger({ url })).rejects.toThrow(/newer Paydesk \(schema version 999/);
    expect(await recorded(url)).toEqual(before);
    expect(before.at(-1)).toEqual({ version: 999, name: 'from-the-future' });
  });

  it('refuses a ledger whose migration history diverges', async () => {
    const { url } = await database();
    await (await openLedger({ url })).close();
    const writer = await openReader({ url });
    try {
      await writer.run("UPDATE schema_migrations SET name = 'something-else' WHERE version = 1");
    } finally {
      await writer.close();
    }
    await expect(openLedger({ url })).rejects.toThrow(/diverges/);
  });

  it('migrates a fresh database exactly once when two processes open it at the same moment', async () => {
    const { url } = await database();
    const connection = path.join(ROOT, 'src/main/ledger/connection.ts');
    const child = () => {
      const code = `const { openLedger } = await import(${JSON.stringify(connection)}); const db = await openLedger({ url: process.env.PAYDESK_LEDGER_URL }); await db.close(); console.log('opened');`;
      const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, env: { ...process.env, PAYDESK_LEDGER_URL: url }, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      proc.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      proc.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      return new Promise<{ code: number | null; output: string }>((resolve) => proc.on('close', (code) => resolve({ code, output })));
    };
    // Hold the migrations lock while both start, so both are waiting on it at once: a real race for it.
    const holder = await openReader({ url });
    let children: Promise<{ code: number | null; output: string }[]> | undefined;
    try {
      await holder.transaction(async () => {
        await holder.lock('migrations');
        children = Promise.all([child(), child()]);
        const waiting = () => holder.get<{ n: number }>("SELECT count(*) AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE d.datname = current_database() AND l.locktype = 'advisory' AND NOT l.granted");
        await waitFor(waiting, (row) => row?.n === 2, 'both processes waiting for the migrations lock', 20_000);
      });
      const results = await children;
      for (const result of results ?? []) expect(result, result?.output).toMatchObject({ code: 0, output: expect.stringContaining('opened') });
    } finally {
      await holder.close();
    }
    expect(await recorded(url)).toEqual(postgresMigrations.map((m) => ({ version: m.version, name: m.name })));
  });
});
