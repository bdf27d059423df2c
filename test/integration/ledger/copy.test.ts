// `npm run ledger:copy`: a desk's SQLite ledger into PostgreSQL and back, exactly; re-runs add
// nothing; an unrelated target is refused untouched; a copy killed mid-way continues; a tampered
// copy is caught by the verification.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedLedger } from '../../../bench/seed-ledger';
import { openLedger } from '../../../src/main/ledger/connection';
const openEngine = (address: string) => openLedger(ledgerAddress(address));
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { copyLedger, LEDGER_TABLES, TABLES_NOT_COPIED } from '../../../src/main/ledger/copy/copy';
import { ledgerAddress } from '../../../src/main/ledger/engine/open';
import type { LedgerEngine } from '../../../src/main/ledger/engine/types';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-database';
import { tempDir } from '../../helpers/temp-dir';

const ROOT = path.resolve(__dirname, '../../..');
let dir: string;
let cleanup: () => void;
let source: string;
/** A smaller desk ledger, for the tests that need a copy, not the 100,000 rows. */
let small: string;
const databases: TestDatabase[] = [];

async function database(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  databases.push(db);
  return db;
}

/** Every row of every table, in key order, as one digest per table (values as text, engine-neutral). */
async function digests(engine: LedgerEngine): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const { table, key } of LEDGER_TABLES) {
    const hash = createHash('sha256');
    let after: unknown = null;
    for (;;) {
      const rows: Record<string, unknown>[] = after === null
        ? await engine.all(`SELECT * FROM ${table} ORDER BY ${key} LIMIT 5000`)
        : await engine.all(`SELECT * FROM ${table} WHERE ${key} > ? ORDER BY ${key} LIMIT 5000`, [after as string]);
      if (rows.length === 0) break;
      for (const row of rows) {
        const entries = Object.keys(row).sort().map((k) => [k, Buffer.isBuffer(row[k]) ? (row[k] as Buffer).toString('base64') : row[k] === null ? null : String(row[k])]);
        hash.update(JSON.stringify(entries));
      }
      after = rows.at(-1)![key];
    }
    result[table] = hash.digest('hex');
  }
  return result;
}

function cli(args: string[]): { done: Promise<{ code: number | null; out: string }>; kill: () => void; onOutput: (fn: (text: string) => void) => void } {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main/ledger/copy/cli.ts'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const listeners: ((text: string) => void)[] = [];
  const take = (chunk: Buffer) => {
    out += chunk.toString();
    for (const fn of listeners) fn(out);
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  return {
    done: new Promise((resolve) => child.on('close', (code) => resolve({ code, out }))),
    kill: () => child.kill('SIGKILL'),
    onOutput: (fn) => listeners.push(fn),
  };
}

beforeAll(async () => {
  ({ dir, cleanup } = tempDir('paydesk-copy-'));
  source = path.join(dir, 'desk.sqlite');
  // 100,000 rows: pay-ins, payouts and notifications, with their attempts and the audit log.
  await seedLedger(source, { payins: 60_000, payouts: 20_000, notifications: 20_000 });
  const desk = await openEngine(source);
  const audit = createRepositories(desk).audit;
  for (let i = 0; i < 50; i++) await audit.append({ actor: 'user', action: 'settings.update', details: { theme: i % 2 ? 'dark' : 'light' } });
  // What the desk's person was told, and a profile renamed by an upgrade: history a copy keeps.
  await createRepositories(desk).notices.add({ kind: 'payout.declined', subject: 'payout:m-1', title: 'Payout m-1 declined: C501', body: 'Declined.', link: '#/payouts/1' }, { people: [''] });
  const profile = await desk.get<{ id: string }>('SELECT id FROM profiles ORDER BY id LIMIT 1');
  await desk.run("INSERT INTO profile_renames (profile_id, old_name, new_name, reason, renamed_at) VALUES (?, 'Shop', 'Shop (2)', 'duplicate', '2026-12-01T00:00:00.000Z')", [profile!.id]);
  await desk.close();
  small = path.join(dir, 'small.sqlite');
  await seedLedger(small, { payins: 12_000, payouts: 4_000, notifications: 4_000 });
  const smallDesk = await openEngine(small);
  await createRepositories(smallDesk).audit.append({ actor: 'user', action: 'settings.update', details: { theme: 'dark' } });
  await smallDesk.close();
}, 120_000);

afterAll(async () => {
  for (const db of databases) await db.drop();
  cleanup?.();
});

describe('ledger:copy', () => {
  it('copies every table of the schema but those it names with a reason, on either engine', async () => {
    const db = await database();
    const pg = await openEngine(db.url);
    const desk = await openEngine(path.join(dir, 'tables.sqlite'));
    try {
      const names = async (engine: LedgerEngine, sql: string) => ((await engine.all(sql)) as { name: string }[]).map((r) => r.name).sort();
      const sqliteTables = await names(desk, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
      const postgresTables = await names(pg, "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'");
      const named = [...LEDGER_TABLES.map((t) => t.table), ...Object.keys(TABLES_NOT_COPIED)].sort();
      // Every table of either engine is named, and every name is a table of one of them.
      expect(sqliteTables.filter((t) => !named.includes(t))).toEqual([]);
      expect(postgresTables.filter((t) => !named.includes(t))).toEqual([]);
      expect(named.filter((t) => !sqliteTables.includes(t) && !postgresTables.includes(t))).toEqual([]);
    } finally {
      await desk.close();
      await pg.close();
    }
  });

  it('copies 100,000 rows into PostgreSQL and back exactly, and a re-run adds nothing', async () => {
    const team = await database();
    const desk = await openEngine(source);
    const pg = await openEngine(team.url);
    try {
      const there = await copyLedger(desk, pg, { chunkRows: 5_000 });
      expect(there.resumed).toBe(false);
      const total = Object.values(there.rows).reduce((a, b) => a + b, 0);
      expect(total).toBeGreaterThanOrEqual(100_000);
      expect(there.rows.payins).toBe(60_000);
      expect([there.rows.notices, there.rows.profile_renames]).toEqual([1, 1]);
      expect(Object.keys(there.sums.payins!).sort()).toEqual(['CAD', 'EUR', 'GBP', 'PLN', 'USD']);
      expect(await digests(pg)).toEqual(await digests(desk));

      const again = await copyLedger(desk, pg);
      expect(again.resumed).toBe(true);
      expect(again.rows).toEqual(there.rows);

      // New rows get ids past the copied ones on PostgreSQL.
      const next = await pg.get<{ id: number }>("INSERT INTO settings (key, value, updated_at) VALUES ('copy-check', '1', 't') RETURNING key AS id");
      expect(next).toBeDefined();
      const identity = await pg.get<{ id: number }>(`INSERT INTO payout_limits (environment, currency, per_payout_max, updated_at) VALUES ('any', 'EUR', '10', 't') RETURNING id`);
      const maxBefore = await desk.get<{ n: number | null }>('SELECT max(id) AS n FROM payout_limits');
      expect(identity!.id).toBeGreaterThan(maxBefore!.n ?? 0);

      const back = path.join(dir, 'back.sqlite');
      const returned = await openEngine(back);
      try {
        await pg.run("DELETE FROM settings WHERE key = 'copy-check'");
        await pg.run('DELETE FROM payout_limits WHERE id = ?', [identity!.id]);
        const home = await copyLedger(pg, returned);
        expect(home.rows).toEqual(there.rows);
        expect(home.sums).toEqual(there.sums);
        expect(await digests(returned)).toEqual(await digests(desk));
      } finally {
        await returned.close();
      }
    } finally {
      await desk.close();
      await pg.close();
    }
  }, 300_000);

  it('refuses a target that holds another ledger, and writes nothing into it', async () => {
    const team = await database();
    const other = await openEngine(team.url);
    try {
      await other.run("INSERT INTO settings (key, value, updated_at) VALUES ('theme', '\"dark\"', 't')");
      const desk = await openEngine(source);
      try {
        await expect(copyLedger(desk, other)).rejects.toThrow(/already holds data that is not a copy of .*desk\.sqlite.*Nothing was written/);
      } finally {
        await desk.close();
      }
      expect(await other.get('SELECT count(*) AS n FROM profiles')).toEqual({ n: 0 });
      expect(await other.get('SELECT count(*) AS n FROM ledger_copies')).toEqual({ n: 0 });
    } finally {
      await other.close();
    }
  });

  it('catches a copy whose audit log was altered', async () => {
    const team = await database();
    const desk = await openEngine(small);
    const pg = await openEngine(team.url);
    try {
      await copyLedger(desk, pg);
      await pg.run('ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update');
      await pg.run("UPDATE audit_log SET details = '{\"tampered\":true}' WHERE seq = 1");
      await expect(copyLedger(desk, pg)).rejects.toThrow(/audit log does not hold at row 1/);
    } finally {
      await desk.close();
      await pg.close();
    }
  }, 120_000);

  it('continues a copy killed mid-way, from the command line, and says so', async () => {
    const team = await database();
    const first = cli(['--from', small, '--to', team.url]);
    first.onOutput((text) => {
      if (/payins: \d+ of 12000/.test(text)) first.kill();
    });
    const killed = await first.done;
    expect(killed.code).toBeNull();
    expect(killed.out).not.toMatch(/verified/);

    const second = await cli(['--from', small, '--to', team.url]).done;
    expect(second.out).toMatch(new RegExp(`Continued and verified: \\d+ rows in ${LEDGER_TABLES.length} tables`));
    expect(second.code).toBe(0);
    const desk = await openEngine(small);
    const pg = await openEngine(team.url);
    try {
      expect(await digests(pg)).toEqual(await digests(desk));
    } finally {
      await desk.close();
      await pg.close();
    }
  }, 300_000);

  it('names what is wrong with its arguments and addresses', async () => {
    expect((await cli(['--help']).done).out).toMatch(/Usage: npm run ledger:copy/);
    const missing = await cli(['--from', source]).done;
    expect(missing.code).toBe(2);
    expect(missing.out).toMatch(/Both --from and --to are needed/);
    const refused = await cli(['--from', source, '--to', 'postgres://postgres:secret-pw@127.0.0.1:1/nowhere']).done;
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/PostgreSQL refused the connection at 127\.0\.0\.1:1/);
    expect(refused.out).not.toContain('secret-pw');
  }, 60_000);
});
