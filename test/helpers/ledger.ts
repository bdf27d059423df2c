import path from 'node:path';
import { openLedger, type Ledger } from '../../src/main/ledger/connection';
import type { Migration } from '../../src/main/ledger/migrations/index';
import { createRepositories, type Repositories } from '../../src/main/ledger/repositories/index';
import type { Profile } from '../../src/main/ledger/repositories/profiles';
import { tempDir } from './temp-dir';

/** A clock the test moves by hand; every read returns the current value. */
export class ManualClock {
  private ms: number;
  constructor(start = '2026-03-01T10:00:00.000Z') {
    this.ms = Date.parse(start);
  }
  readonly now = (): Date => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface TestLedger {
  db: Ledger;
  file: string;
  repos: Repositories;
  clock: ManualClock;
  profile: Profile;
  close(): void;
}

/**
 * A real ledger file in a fresh temp directory, with every migration (or only `migrations`, to
 * test an upgrade from an older schema) and one local profile.
 */
export function testLedger(options: { migrations?: readonly Migration[] } = {}): TestLedger {
  const { dir, cleanup } = tempDir('paydesk-ledger-');
  const file = path.join(dir, 'ledger.sqlite');
  const clock = new ManualClock();
  const db = openLedger({ file, now: clock.now, migrations: options.migrations });
  const repos = createRepositories(db, clock.now);
  const profile = repos.profiles.create({
    name: 'Local emulator',
    environment: 'local',
    baseUrl: 'http://127.0.0.1:9/api/v2',
    merchantId: 'm-1',
    merchantSiteId: 's-1',
  });
  return {
    db,
    file,
    repos,
    clock,
    profile,
    close: () => {
      if (db.open) db.close();
      cleanup();
    },
  };
}
