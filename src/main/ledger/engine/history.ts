// What both engines check before migrating: the ledger's recorded history must be a prefix of this
// build's migrations, or the ledger is refused untouched.
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
}

export function checkHistory(applied: readonly AppliedMigration[], migrations: readonly AppliedMigration[], where: string): void {
  const known = new Map(migrations.map((m) => [m.version, m]));
  const newest = migrations.at(-1)?.version ?? 0;
  for (const row of applied) {
    if (row.version > newest) {
      throw new LedgerVersionError(
        `This ledger (${where}) was written by a newer Paydesk (schema version ${row.version}, this build knows up to ${newest}). ` +
          'Update Paydesk, or open another ledger; nothing was changed.',
      );
    }
    const expected = known.get(row.version);
    if (!expected || expected.name !== row.name) {
      throw new LedgerVersionError(`This ledger's (${where}) migration history diverges from this build at version ${row.version} ("${row.name}"); nothing was changed.`);
    }
  }
}
