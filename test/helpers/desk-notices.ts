// A desk's ledger with its notices told as the core tells them (LedgerNotices connected to the
// Notices service), on a manual clock, with a live and a sandbox profile: the start of every test
// of what a desk is told.
import { createRepositories, type Repositories } from '../../src/main/ledger/repositories/index';
import type { Profile } from '../../src/main/ledger/repositories/profiles';
import { EventBus } from '../../src/main/services/event-bus';
import { LedgerNotices, Notices } from '../../src/main/services/notices/notices';
import { silentLogger } from './app-core';
import { freshLedger, ManualClock } from './ledger';

export interface DeskNotices {
  ledger: Awaited<ReturnType<typeof freshLedger>>;
  clock: ManualClock;
  repos: Repositories;
  notices: Notices;
  live: Profile;
  sandbox: Profile;
}

export async function deskNotices(): Promise<DeskNotices> {
  const clock = new ManualClock();
  const ledger = await freshLedger({ now: clock.now });
  const told = new LedgerNotices();
  const repos = createRepositories(ledger.db, clock.now, { events: told });
  const notices = new Notices({ repos, team: false, person: () => undefined, screens: new EventBus(), log: silentLogger });
  told.connect(notices);
  const profile = (name: string, environment: 'live' | 'sandbox') => repos.profiles.create({ name, environment, baseUrl: 'https://pay.example.com/api/v2', merchantId: 'm', merchantSiteId: 's' });
  return { ledger, clock, repos, notices, live: await profile('Shop live', 'live'), sandbox: await profile('Shop sandbox', 'sandbox') };
}
