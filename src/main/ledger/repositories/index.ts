// The ledger's repositories, built together on one connection and one clock.
import type { Ledger } from '../connection';
import { systemClock, type Clock } from '../support';
import { AttemptsRepository } from './attempts';
import { AuditLog } from './audit-log';
import { NotificationsRepository } from './notifications';
import { PayinsRepository } from './payins';
import { PayoutsRepository } from './payouts';
import { ProfilesRepository } from './profiles';
import { StatusReadsRepository } from './status-reads';
import { TokensRepository } from './tokens';

export interface Repositories {
  profiles: ProfilesRepository;
  attempts: AttemptsRepository;
  payins: PayinsRepository;
  payouts: PayoutsRepository;
  tokens: TokensRepository;
  notifications: NotificationsRepository;
  statusReads: StatusReadsRepository;
  audit: AuditLog;
}

export function createRepositories(db: Ledger, now: Clock = systemClock): Repositories {
  return {
    profiles: new ProfilesRepository(db, now),
    attempts: new AttemptsRepository(db, now),
    payins: new PayinsRepository(db, now),
    payouts: new PayoutsRepository(db, now),
    tokens: new TokensRepository(db, now),
    notifications: new NotificationsRepository(db, now),
    statusReads: new StatusReadsRepository(db),
    audit: new AuditLog(db, now),
  };
}
