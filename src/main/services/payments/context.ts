// What the payment services share: the ledger, the gateway sessions, the status reader, the
// profile lookup and the push publisher. Passed in by core.ts; nothing here is a module-level
// singleton.
import type { PayoutCreateInput } from '../../gateway/endpoints';
import type { Clock, IdSource } from '../../gateway/runtime';
import type { Ledger } from '../../ledger/connection';
import type { Repositories } from '../../ledger/repositories/index';
import type { Profile } from '../../ledger/repositories/profiles';
import type { CredentialService } from '../credential-service';
import type { EventBus } from '../event-bus';
import type { GatewaySessions } from '../gateway-sessions';
import type { NotificationApplier } from '../notification-applier';
import type { ProfileService } from '../profile-service';
import { ServiceError } from '../errors';
import type { ReadRequest, StatusReader, StatusReadOutcome } from '../verification/status-reader';
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
  /**
   * Every status read these services make goes through the verification's reader: the one
   * client-side rate limit (and Retry-After) shared with the verifier, and one way to apply it.
   */
  reader: Pick<StatusReader, 'readFor'>;
  /** A notification a status read re-marked as contradicted (pushed as notifications:notification-changed). */
  notificationChanged?: (id: number) => void;
  /**
   * Runs inside the transaction that records a payout, before its attempt is prepared, so no two
   * concurrent payouts can both pass it; throws a ServiceError to refuse (payout limits).
   */
  payoutGuard?: (profile: Profile, body: PayoutCreateInput) => void;
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

  /**
   * A status read a person asked for, through the shared reader; what it changed is pushed. A read
   * that could not even be attempted (the app is closing) is an error; a rate-limited one is not.
   */
  async readStatus(profile: Profile, request: ReadRequest): Promise<StatusReadOutcome & { read: NonNullable<StatusReadOutcome['read']> }> {
    const outcome = await this.deps.reader.readFor(profile, request);
    for (const id of outcome.contradictedNotifications) this.deps.notificationChanged?.(id);
    if (outcome.rowId !== null) this.publish({ subject: outcome.subject, rowId: outcome.rowId });
    const { read } = outcome;
    if (read === null) throw new ServiceError('unavailable', `The status read was not sent: ${outcome.detail ?? 'the app is closing'}.`);
    return { ...outcome, read };
  }

  now(): Date {
    return new Date(this.deps.clock.now());
  }
}
