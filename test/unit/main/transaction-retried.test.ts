// Repositories.transactionRetried: a unit of work PostgreSQL rolled back as a deadlock's victim
// (40P01) or a serialisation failure (40001) is run again whole, a few times; any other error, and
// the last conflict, reach the caller. (A status read applied by a person's resume and by the
// recovering leader at once deadlocked in the PostgreSQL crash test.)
import { describe, expect, it } from 'vitest';
import type { Sql } from '../../../src/main/ledger/engine/types';
import { createRepositories } from '../../../src/main/ledger/repositories/index';

/** An engine whose transactions fail with these errors first, then run their work. */
function engineFailing(errors: unknown[]): { db: Sql; runs: () => number } {
  let runs = 0;
  const db = {
    engine: 'postgres',
    transaction: async <T>(fn: () => Promise<T>): Promise<T> => {
      runs++;
      const error = errors.shift();
      if (error !== undefined) throw error;
      return fn();
    },
  } as unknown as Sql;
  return { db, runs: () => runs };
}

const conflict = (code: string) => Object.assign(new Error(code === '40P01' ? 'deadlock detected' : 'could not serialize access'), { code });

describe('transactionRetried', () => {
  it('runs the work again after a deadlock and a serialisation failure', async () => {
    const { db, runs } = engineFailing([conflict('40P01'), conflict('40001')]);
    expect(await createRepositories(db).transactionRetried(async () => 'applied')).toBe('applied');
    expect(runs()).toBe(3);
  });

  it('gives up after four tries, with the conflict', async () => {
    const { db, runs } = engineFailing([conflict('40P01'), conflict('40P01'), conflict('40P01'), conflict('40P01'), conflict('40P01')]);
    await expect(createRepositories(db).transactionRetried(async () => 'applied')).rejects.toThrow('deadlock detected');
    expect(runs()).toBe(4);
  });

  it('does not run again after any other error', async () => {
    const { db, runs } = engineFailing([Object.assign(new Error('duplicate key'), { code: '23505' })]);
    await expect(createRepositories(db).transactionRetried(async () => 'applied')).rejects.toThrow('duplicate key');
    expect(runs()).toBe(1);
  });
});
