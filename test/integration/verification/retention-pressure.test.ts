// The notification retention rule on a real core: malformed notifications pouring into the listener over HTTP
// are pruned as they pile up (not only at the next periodic run), so the ledger stops growing at
// the profile's retention rule while the flood goes on, and is back within it a second after;
// the rule is set through the contract, as Settings does.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEngine } from '../../helpers/ledger';
import { startHarness, waitFor, type Harness } from './harness';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const KiB = 1024;
const MiB = 1024 * KiB;

describe('notification retention under insert pressure', () => {
  it('keeps the ledger within the rule while 30 MB of malformed notifications arrive', async () => {
    const profileId = await h.profileId();
    await h.call('settings:update-notification-retention', { profileId, maxCount: 10, maxMiB: 1, maxAgeDays: 30 });
    // The SQLite file's pages in use. PostgreSQL gives a deleted row's space back at VACUUM, on
    // autovacuum's schedule rather than at the delete, so the file-size part is SQLite's alone.
    const usedBytes = async () => {
      if (testEngine !== 'sqlite') return 0;
      const pragma = async (name: string) => Object.values((await h.core.ledger.get<Record<string, number>>(`PRAGMA ${name}`)) ?? {})[0] ?? 0;
      return ((await pragma('page_count')) - (await pragma('freelist_count'))) * (await pragma('page_size'));
    };
    const usedBefore = await usedBytes();
    let peakUsed = 0;
    for (let round = 0; round < 30; round++) {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => h.notify(`garbage ${round}-${i} ${'g'.repeat(100 * KiB)}`)));
      expect(answers.every((answer) => answer.status === 400)).toBe(true);
      peakUsed = Math.max(peakUsed, await usedBytes());
    }
    // Once the flood is over the rule has run again: exactly what it allows is left.
    const [view] = await waitFor(
      async () => (await h.call('settings:get-notification-retention')).filter((v) => v.profileId === profileId),
      (views) => (views[0]?.kept.count ?? Infinity) <= 10,
      'the rule to catch up',
    );
    expect(view?.kept.bytes).toBeLessThanOrEqual(1 * MiB);
    expect(view?.dropped.malformedDeleted).toBe(300 - (view?.kept.count ?? 0));
    expect(view?.dropped.bytes).toBeGreaterThan(27 * MiB);
    // 30 MB arrived; the ledger's used pages grew by a few MB at most (the rule, plus what arrives
    // between two runs), and freed pages are used again.
    expect(peakUsed - usedBefore).toBeLessThan(10 * MiB);
    const listed = await h.call('notifications:list', { outcomes: ['malformed'], limit: 500 });
    expect(listed.items.length).toBe(view?.kept.count);
  });
});
