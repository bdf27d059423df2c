// The ledger's migrations: one list of steps, each a change of the schema with its SQLite form and
// its PostgreSQL form (or the reason it has none on that engine), applied in order, each in one
// transaction with its record in the engine's schema_migrations. Each engine numbers its own
// migrations (PostgreSQL's 0001 is the whole schema SQLite reaches through its 0001-0013), and
// those numbers are what a ledger records: never renumber one, never edit one that has shipped;
// add a step instead (docs/ledger.md, "Adding a migration").
//
// `compatibleWithPrevious` says whether a Paydesk of the schema before the step can keep running on
// a ledger where it is applied (several team-server instances during a rolling upgrade,
// docs/team.md "Upgrade"): an added table, column with a default or nullable, or index is; a step
// that renames, drops, adds a constraint old code would break, or changes what a value means is not.
import type { Database } from 'better-sqlite3';
import { migration0001 } from './0001_settings';
import { migration0002 } from './0002_profiles';
import { migration0003 } from './0003_payments';
import { migration0004 } from './0004_notifications';
import { migration0005 } from './0005_audit_log';
import { migration0006 } from './0006_verification';
import { migration0007 } from './0007_payout_batches';
import { migration0008 } from './0008_processed_dedupe';
import { migration0009 } from './0009_settling';
import { migration0010 } from './0010_batch_history';
import { migration0011 } from './0011_cards_and_stale_notifications';
import { migration0012 } from './0012_notification_retention';
import { migration0013 } from './0013_notification_search';
import { migration0014 } from './0014_ledger_copies';
import { migration0015 } from './0015_team';
import { migration0016 } from './0016_approvals';
import { migration0017 } from './0017_scale_out';
import { migration0018 } from './0018_day_totals_index';
import { migration0019 } from './0019_payout_duplicates';
import { migration0020 } from './0020_profile_names';
import { migration0021 } from './0021_batch_event_instances';
import { migration0022 } from './0022_statements';
import { migration0023 } from './0023_notices';
import { migration0024 } from './0024_watch_indexes';
import { migration0025 } from './0025_notice_watches';
import { migration0026 } from './0026_staged_occurrence';
import { migration0027 } from './0027_send_reviews';
import { migration0028 } from './0028_batch_items_sending';
import type { PostgresMigration } from './postgres/index';
import { postgres0001 } from './postgres/0001_schema';
import { postgres0002 } from './postgres/0002_ledger_copies';
import { postgres0003 } from './postgres/0003_team';
import { postgres0004 } from './postgres/0004_approvals';
import { postgres0005 } from './postgres/0005_scale_out';
import { postgres0006 } from './postgres/0006_payout_duplicates';
import { postgres0007 } from './postgres/0007_profile_names';
import { postgres0008 } from './postgres/0008_day_totals_statistics';
import { postgres0009 } from './postgres/0009_batch_event_instances';
import { postgres0010 } from './postgres/0010_statements';
import { postgres0011 } from './postgres/0011_notices';
import { postgres0012 } from './postgres/0012_watch_indexes';
import { postgres0013 } from './postgres/0013_notice_watches';
import { postgres0014 } from './postgres/0014_staged_occurrence';
import { postgres0015 } from './postgres/0015_send_reviews';
import { postgres0016 } from './postgres/0016_batch_items_sending';

export type { PostgresMigration } from './postgres/index';

/** A SQLite migration: run inside the transaction that records it. */
export interface Migration {
  version: number;
  name: string;
  up: (db: Database) => void;
}

/** Why a step has no migration on one engine. */
export interface NoMigration {
  none: string;
}

export interface MigrationStep {
  /** Whether Paydesk at the schema before this step keeps running, unchanged, once it is applied. */
  compatibleWithPrevious: boolean;
  /** SQLite's migration, or several when PostgreSQL did it in one (its 0001). */
  sqlite: Migration | readonly Migration[] | NoMigration;
  postgres: PostgresMigration | NoMigration;
}

export const steps: readonly MigrationStep[] = [
  // The schema before there was a second engine; nothing ran before it.
  {
    compatibleWithPrevious: false,
    sqlite: [migration0001, migration0002, migration0003, migration0004, migration0005, migration0006, migration0007, migration0008, migration0009, migration0010, migration0011, migration0012, migration0013],
    postgres: postgres0001,
  },
  // A table of its own, read only by ledger:copy.
  { compatibleWithPrevious: true, sqlite: migration0014, postgres: postgres0002 },
  // Tables of their own, used only by a team server (none before it).
  { compatibleWithPrevious: true, sqlite: migration0015, postgres: postgres0003 },
  // Not compatible: Paydesk before it knows no approval policies and would send what they hold back.
  { compatibleWithPrevious: false, sqlite: migration0016, postgres: postgres0004 },
  // Not compatible: Paydesk before it knows no instances, and at its start would take a live
  // instance's sends (attempts.claimed_by) and batches (batches.run_by) for interrupted ones.
  { compatibleWithPrevious: false, sqlite: migration0017, postgres: postgres0005 },
  // An index replaced: plans change, results do not.
  { compatibleWithPrevious: true, sqlite: migration0018, postgres: { none: 'its totals keep their index led by created_at; the step below tells its planner of the day' } },
  // Not compatible: Paydesk before it writes payouts without their beneficiary_key, so the guard
  // against paying the same person twice would not see them.
  { compatibleWithPrevious: false, sqlite: migration0019, postgres: postgres0006 },
  // Not compatible: Paydesk before it knows no archived profiles (it would offer and send with one),
  // and its profile create meets the unique name index as an internal error.
  { compatibleWithPrevious: false, sqlite: migration0020, postgres: postgres0007 },
  // Statistics for the planner: plans change, results do not.
  { compatibleWithPrevious: true, sqlite: { none: 'the day-led index of its 0018 serves its totals' }, postgres: postgres0008 },
  // Columns that may be null (which instance recorded a batch's event, and which ran the batch
  // before): Paydesk before it records events without them, and they read with the old words.
  { compatibleWithPrevious: true, sqlite: migration0021, postgres: postgres0009 },
  // Tables of their own (statements, their lines, settlements and matches): Paydesk before it never reads them.
  { compatibleWithPrevious: true, sqlite: migration0022, postgres: postgres0010 },
  // A table of its own (the notices told to each person): Paydesk before it never writes or reads it.
  { compatibleWithPrevious: true, sqlite: migration0023, postgres: postgres0011 },
  // Indexes for the watches' questions: plans change, results do not.
  { compatibleWithPrevious: true, sqlite: migration0024, postgres: postgres0012 },
  // Tables of their own (sign-in addresses, decline rates told) and an index: Paydesk before it
  // never reads them, and records sign-ins and statuses as before.
  { compatibleWithPrevious: true, sqlite: migration0025, postgres: postgres0013 },
  // A column that may be null (a staged line's occurrence): Paydesk before it stages lines without
  // it and counts every line's occurrence itself; this Paydesk counts the lines staged without one.
  { compatibleWithPrevious: true, sqlite: migration0026, postgres: postgres0014 },
  // A table of its own (the reviews live sends redeem): Paydesk before it keeps its reviews in its
  // process and never reads the table; a review one made is refused by the other ("review again").
  { compatibleWithPrevious: true, sqlite: migration0027, postgres: postgres0015 },
  // An index: plans change, results do not.
  { compatibleWithPrevious: true, sqlite: migration0028, postgres: postgres0016 },
];

/** An engine's migration as its opener applies it: with its step's declaration. */
export type Declared<M> = M & { compatibleWithPrevious: boolean };

function formsOf<M>(form: M | readonly M[] | NoMigration): readonly M[] {
  if (Array.isArray(form)) return form as readonly M[];
  return typeof form === 'object' && form !== null && 'none' in form ? [] : [form as M];
}

/** Each engine's migrations, in order, as these steps give them. */
export function engineMigrations(list: readonly MigrationStep[]): { sqlite: Declared<Migration>[]; postgres: Declared<PostgresMigration>[] } {
  const declared = <M>(step: MigrationStep, forms: readonly M[]) => forms.map((form) => ({ ...form, compatibleWithPrevious: step.compatibleWithPrevious }));
  return {
    sqlite: list.flatMap((step) => declared(step, formsOf(step.sqlite))),
    postgres: list.flatMap((step) => declared(step, formsOf(step.postgres))),
  };
}

const all = engineMigrations(steps);
/** SQLite's migrations, numbered 1, 2, … */
export const migrations: readonly Declared<Migration>[] = all.sqlite;
/** PostgreSQL's migrations, numbered 1, 2, … */
export const postgresMigrations: readonly Declared<PostgresMigration>[] = all.postgres;
