// What the payment services share: the ledger, the gateway sessions, the profile lookup and the
// push publisher. Passed in by core.ts; nothing here is a module-level singleton.
import type { Clock, IdSource } from '../../gateway/runtime';
import type { Ledger } from '../../ledger/connection';
import type { Repositories } from '../../ledger/repositories/index';
import type { Profile } from '../../ledger/repositories/profiles';
import type { CredentialService } from '../credential-service';
import type { EventBus } from '../event-bus';
import type { GatewaySessions } from '../gateway-sessions';
import type { NotificationApplier } from '../notification-applier';
import type { ProfileService } from '../profile-service';
import { publishTransactionChanged, type TransactionChange } from './pushes';

export interface PaymentsDeps {
  db: Ledger;
  repos: Repositories;
  profiles: Pick<ProfileService, 'active' | 'require'>;
  credentials: Pick<CredentialService, 'signingKey'>;
  gateways: GatewaySessions;
  /** Notifications that arrived before the transaction was known are applied once it is. */
  applier: Pick<NotificationApplier, 'matchOrphans'>;
  events: EventBus;
  /** notification_link / notificationUrl / tokenization_notification_url of a profile. */
  notificationUrl: (profile: Profile) => string;
  clock: Clock;
  ids: IdSource;
}

export class PaymentsContext {
  constructor(readonly deps: PaymentsDeps) {}

  get repos(): Repositories {
    return this.deps.repos;
  }

  /** The given profile, or the active one. */
  profile(profileId: string | undefined): Profile {
    return profileId === undefined ? this.deps.profiles.active() : this.deps.profiles.require(profileId);
  }

  publish(...changes: TransactionChange[]): void {
    for (const change of changes) publishTransactionChanged(this.deps.events, this.deps.repos, change);
  }

  now(): Date {
    return new Date(this.deps.clock.now());
  }
}
