// Two engines kept in step by code (migrations/index.ts: one list of steps, each with its SQLite
// and its PostgreSQL form): a fresh ledger on each engine, migrated to the end, holds the same
// tables, columns (type, nullability, default), indexes, constraints and triggers
// (test/helpers/schema-facts.ts reads both catalogues into one vocabulary), but for the
// differences listed below, each with its reason. A migration added to one engine alone fails here.
// Runs once, in the first pass: it opens both engines itself.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger, type Ledger } from '../../../src/main/ledger/connection';
import { migrations, postgresMigrations, steps } from '../../../src/main/ledger/migrations/index';
import { postgresFacts, sqliteFacts } from '../../helpers/schema-facts';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-database';
import { tempDir } from '../../helpers/temp-dir';

/** What differs on purpose: the facts of one engine (or both) that the other does not have, and why. */
const DIFFERENCES: { sqlite?: RegExp; postgres?: RegExp; reason: string }[] = [
  {
    sqlite: /^column (audit_log\.seq|payin_cards\.payin_row_id|payout_cards\.payout_row_id|schema_migrations\.version) integer not null default generated$/,
    postgres: /^column (audit_log\.seq|payin_cards\.payin_row_id|payout_cards\.payout_row_id|schema_migrations\.version) integer not null$/,
    reason: "SQLite numbers an INTEGER PRIMARY KEY when none is given; these keys are always given (the audit chain's seq, the card's transaction id, the migration's version)",
  },
  {
    sqlite: /^index pay(in|out)s\.pay(in|out)s_day_totals /,
    postgres: /^index pay(in|out)s\.pay(in|out)s_totals /,
    reason: "totals by day: SQLite reads an index led by the day so that it sorts nothing (its 0018); PostgreSQL keeps the one led by created_at, with statistics of the day for its planner (its 0008)",
  },
  {
    postgres: /^(table push_relay|column push_relay\.|primary key push_relay |index push_relay\.|trigger push_relay\.push_relay_notify )/,
    reason: 'pushes relayed between the instances of a team server (LISTEN/NOTIFY): a desk is one process',
  },
  {
    sqlite: /^index profiles\.profiles_unique_name unique /,
    postgres: /^index profiles\.profiles_unique_name unique /,
    reason: "unique profile names, each engine folding the name with what it has: SQLite's lower() and replace() of each kind of space, PostgreSQL's lower() and regexp_replace() of \\s (the rule itself is shared/profile-rules.ts)",
  },
  {
    postgres: /^trigger audit_log\.audit_log_no_truncate before truncate$/,
    reason: 'SQLite has no TRUNCATE (its DELETE trigger covers a delete of every row)',
  },
];

let sqlite: Ledger;
let postgres: Ledger;
let database: TestDatabase;
let dir: ReturnType<typeof tempDir>;

beforeAll(async () => {
  dir = tempDir('paydesk-engines-');
  sqlite = await openLedger({ file: path.join(dir.dir, 'ledger.sqlite') });
  database = await createTestDatabase();
  postgres = await openLedger({ url: database.url });
});

afterAll(async () => {
  await sqlite?.close();
  await postgres?.close();
  await database?.drop();
  dir?.cleanup();
});

describe('the migration steps on both engines', () => {
  it('numbers each engine\'s migrations 1, 2, … in the order of the steps, and gives every step a form or a reason on each engine', () => {
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
    expect(postgresMigrations.map((m) => m.version)).toEqual(postgresMigrations.map((_, i) => i + 1));
    for (const step of steps) {
      for (const form of [step.sqlite, step.postgres]) {
        if ('none' in form) expect(form.none.length, JSON.stringify(step)).toBeGreaterThan(20);
      }
      expect('none' in step.sqlite && 'none' in step.postgres, 'a step with no migration on either engine').toBe(false);
    }
  });

  it('leaves the same schema on SQLite and PostgreSQL, but for the differences listed with their reasons', async () => {
    const facts = { sqlite: await sqliteFacts(sqlite), postgres: await postgresFacts(postgres) };
    expect(facts.sqlite.length).toBeGreaterThan(400);
    const onlyOn = (engine: 'sqlite' | 'postgres') => {
      const other = new Set(facts[engine === 'sqlite' ? 'postgres' : 'sqlite']);
      return facts[engine].filter((fact) => !other.has(fact));
    };
    const explained = (engine: 'sqlite' | 'postgres', fact: string) => DIFFERENCES.some((d) => d[engine]?.test(fact));
    expect(onlyOn('sqlite').filter((fact) => !explained('sqlite', fact)), 'on SQLite only').toEqual([]);
    expect(onlyOn('postgres').filter((fact) => !explained('postgres', fact)), 'on PostgreSQL only').toEqual([]);
    // Every listed difference is still there (a difference fixed leaves no stale reason behind).
    for (const difference of DIFFERENCES) {
      for (const engine of ['sqlite', 'postgres'] as const) {
        if (difference[engine]) expect(onlyOn(engine).some((fact) => difference[engine]!.test(fact)), `${engine}: ${difference.reason}`).toBe(true);
      }
    }
  });
});
