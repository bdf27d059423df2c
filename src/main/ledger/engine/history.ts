// What both engines check before migrating: the ledger's recorded history must be a prefix of this
// build's migrations, or the ledger is refused untouched. The one exception is a team server's
// ledger (PostgreSQL) that a newer Paydesk migrated further with steps all declared compatible with
// this build: it keeps running on it (docs/team.md, "Upgrade").
export class LedgerOpenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LedgerOpenError';
  }
}

export class LedgerVersionError extends LedgerOpenError {
  constructor(message: string) {
    super(message);
    this.name = 'LedgerVersionError';
  }
}

export interface AppliedMigration {
  version: number;
  name: string;
  /**
   * The oldest schema version whose Paydesk keeps running with this migration applied, as the
   * Paydesk that applied it declared (migrations/index.ts, `compatibleWithPrevious`); null when
   * it was applied by one that did not record it.
   */
  oldest_compatible?: number | null;
}

/**
 * What each migration records as oldest_compatible: its own version when Paydesk before it cannot
 * keep running on it, else what the migration before it records (so a chain of compatible steps
 * lets the Paydesk before the chain run on all of them).
 */
export function oldestCompatible(migrations: readonly { version: number; compatibleWithPrevious: boolean }[]): Map<number, number> {
  const oldest = new Map<number, number>();
  let previous = 0;
  for (const migration of migrations) {
    previous = migration.compatibleWithPrevious ? previous : migration.version;
    oldest.set(migration.version, previous);
  }
  return oldest;
}

/** Where a ledger's history stands against the newest migration a build knows. */
export type SchemaStanding =
  | { state: 'current' }
  /** Migrated further by a newer Paydesk, every newer migration declared compatible with this build. */
  | { state: 'compatible'; version: number; newest: number }
  /** Migrated further, and `blocking` cannot run with this build (or did not say). */
  | { state: 'incompatible'; version: number; newest: number; blocking: AppliedMigration };

export function standingOf(applied: readonly AppliedMigration[], newest: number): SchemaStanding {
  const beyond = applied.filter((row) => row.version > newest);
  if (beyond.length === 0) return { state: 'current' };
  const version = Math.max(...beyond.map((row) => row.version));
  const blocking = beyond.find((row) => row.oldest_compatible === null || row.oldest_compatible === undefined || row.oldest_compatible > newest);
  return blocking ? { state: 'incompatible', version, newest, blocking } : { state: 'compatible', version, newest };
}

/** Why a build cannot run on a ledger migrated past it, in one sentence to log and to answer with. */
export function incompatibility(standing: Extract<SchemaStanding, { state: 'incompatible' }>): string {
  const { version, newest, blocking } = standing;
  return `the ledger was upgraded by a newer Paydesk to schema version ${version}, and its migration ${blocking.version} ("${blocking.name}") cannot run with this Paydesk (schema version ${newest})`;
}

/**
 * Refuses a ledger whose history diverges from `migrations`, or that a newer Paydesk migrated past
 * them (unless `runsOnCompatible` and every newer migration is declared compatible).
 */
export function checkHistory(applied: readonly AppliedMigration[], migrations: readonly AppliedMigration[], where: string, { runsOnCompatible = false } = {}): SchemaStanding {
  const known = new Map(migrations.map((m) => [m.version, m]));
  const newest = migrations.at(-1)?.version ?? 0;
  const standing = standingOf(applied, newest);
  if (standing.state === 'incompatible' || (standing.state === 'compatible' && !runsOnCompatible)) {
    const which = standing.state === 'incompatible' && runsOnCompatible ? `; its migration ${standing.blocking.version} ("${standing.blocking.name}") cannot run with this build` : '';
    throw new LedgerVersionError(
      `This ledger (${where}) was written by a newer Paydesk (schema version ${standing.version}, this build knows up to ${newest}${which}). ` +
        'Update Paydesk, or open another ledger; nothing was changed.',
    );
  }
  for (const row of applied) {
    if (row.version > newest) continue;
    const expected = known.get(row.version);
    if (!expected || expected.name !== row.name) {
      throw new LedgerVersionError(`This ledger's (${where}) migration history diverges from this build at version ${row.version} ("${row.name}"); nothing was changed.`);
    }
  }
  return standing;
}
