// What the payment services share: the ledger, the gateway sessions, the status reader, the
// profile lookup and the push publisher. Passed in by core.ts; nothing here is a module-level
// singleton.
import type { TransactionKind } from '../../ledger/status';
import type { DuplicateGuard } from './duplicate-guard';
import type { ApprovalNeed, LimitCheckResult } from '../../../shared/contract';
import type { PayoutCreateInput } from '../../gateway/endpoints';
import type { Clock, IdSource } from '../../gateway/runtime';
import type { Repositories } from '../../ledger/repositories/index';
import type { Profile } from '../../ledger/repositories/profiles';
import type { TransactionLookups, TransactionRecord } from '../../ledger/repositories/transactions';
import type { CredentialService } from '../credential-service';
import type { EventBus } from '../event-bus';
import type { NotificationApplier } from '../notification-applier';
import type { Logger } from '../../logger';
import type { GatewaySessions } from '../gateway-sessions';
import type { ProfileService } from '../profile-service';
import { ServiceError } from '../errors';
import { refusedReferenceReadText, type ReferenceReads } from '../verification/reference-reads';
import type { ReadRequest, StatusReader, StatusReadOutcome } from '../verification/status-reader';
import { AttemptProgressBoard } from './progress';
import { publishTransactionChanged, type TransactionChange } from './pushes';
import type { ReviewGate } from './review-gate';

/** Which pay-in or payout: a row id, or the gateway's id or request reference in a profile (else the active one). */
export interface TransactionRef {
  profileId?: string | undefined;
  id?: number | undefined;
  reference?: string | undefined;
  gatewayId?: string | undefined;
}

export interface PaymentsDeps {
  repos: Repositories;
  profiles: Pick<ProfileService, 'resolve' | 'require' | 'forSending'>;
  credentials: Pick<CredentialService, 'signingKey'>;
  gateways: GatewaySessions;
  /** Notifications that arrived before the transaction was known are applied once it is (awaited). */
  applier: Pick<NotificationApplier, 'matchOrphans' | 'matchOrphansOf'>;
  events: EventBus;
  /** notification_link / notificationUrl / tokenization_notification_url of a profile. */
  notificationUrl: (profile: Profile) => string;
  clock: Clock;
  ids: IdSource;
  log: Logger;
  /**
   * Every status read these services make goes through the verification's reader: the one
   * client-side rate limit (and Retry-After) shared with the verifier, and one way to apply it.
   */
  reader: Pick<StatusReader, 'readFor'>;
  /** Whether a profile's gateway has said it cannot read payouts by merchantReference (the settler's notes). */
  referenceReads: ReferenceReads;
  /** Told the state each pay-in or payout create ended in (metrics). */
  onCreated?: (kind: TransactionKind, state: string) => void;
  /** A notification a status read re-marked as contradicted (pushed as notifications:notification-changed). */
  notificationChanged?: (id: number) => Promise<unknown>;
  /**
   * Runs (awaited) inside the transaction that records a payout, before its attempt is prepared, so
   * no two concurrent payouts can both pass it; rejects with a ServiceError to refuse (payout limits).
   */
  payoutGuard?: (profile: Profile, body: PayoutCreateInput) => Promise<void>;
  /** The review proofs live payouts need: issued by the reviews, redeemed by the sends. */
  reviews: ReviewGate;
  /** Earlier payouts a new one may repeat (duplicate-guard.ts); none are looked for when absent. */
  duplicates?: Pick<DuplicateGuard, 'matches' | 'windowDays'>;
  /** What the payout limits say of a payout, for its review. */
  checkLimits: (profile: Profile, currency: string, amount: string) => Promise<LimitCheckResult>;
  /** What the approval policy asks of a payout before it is sent (services/approvals); none when absent. */
  approvals?: {
    forPayout(profile: Profile, currency: string, amount: string): Promise<ApprovalNeed>;
    requireTypedAmount(need: ApprovalNeed, typed: string | undefined): void;
  };
  /**
   * A transaction was sent with a notification link the gateway cannot reach: its status is
   * polled until final (StatusPoller.track, which never rejects). Called once its create answer is recorded.
   */
  pollStatus?: (subject: 'payin' | 'payout', rowId: number) => Promise<void>;
}

export class PaymentsContext {
  /** The progress of the creates in flight that a person waits on. */
  readonly progress: AttemptProgressBoard;

  constructor(readonly deps: PaymentsDeps) {
    this.progress = new AttemptProgressBoard(deps.events);
  }

  get repos(): Repositories {
    return this.deps.repos;
  }

  /** The given profile, or the active one. */
  profile(profileId: string | undefined): Promise<Profile> {
    return this.deps.profiles.resolve(profileId);
  }

  /** The profile a request is sent from: the given one or the active one, never an archived one. */
  sendingProfile(profileId: string | undefined): Promise<Profile> {
    return this.deps.profiles.forSending(profileId);
  }

  /**
   * A pay-in or payout of the ledger (`what` names it in the not_found error): by its row id (of
   * the given profile, when one is given), else in the given (or active) profile by the gateway's
   * id, else by its request reference.
   */
  async findTransaction<T extends TransactionRecord>(store: TransactionLookups<T>, ref: TransactionRef, what: string): Promise<T> {
    let record: T | undefined;
    if (ref.id !== undefined) {
      record = await store.byId(ref.id);
      if (record && ref.profileId !== undefined && record.profileId !== ref.profileId) record = undefined;
    } else {
      const profile = await this.profile(ref.profileId);
      record = (ref.gatewayId && (await store.byGatewayId(ref.gatewayId, profile.id))) || (ref.reference && (await store.byReference(profile.id, ref.reference))) || undefined;
    }
    if (!record) throw new ServiceError('not_found', `No such ${what} in the ledger.`);
    return record;
  }

  async publish(...changes: TransactionChange[]): Promise<void> {
    for (const change of changes) await publishTransactionChanged(this.deps.events, this.deps.repos, change);
  }

  /**
   * A status read a person asked for, through the shared reader; what it changed is pushed. A read
   * that could not even be attempted (the app is closing; a payout's gateway that cannot read by
   * merchantReference, which says so) is an error; a rate-limited one is not.
   */
  async readStatus(profile: Profile, request: ReadRequest, wait: 'person' | 'background' = 'person'): Promise<StatusReadOutcome & { read: NonNullable<StatusReadOutcome['read']> }> {
    const outcome = await this.lookUp(profile, request, wait);
    const { read } = outcome;
    if (read === null) throw new ServiceError('unavailable', outcome.notAsked ? `Not read: ${refusedReferenceReadText(outcome.notAsked)}.` : `The status read was not sent: ${outcome.detail ?? 'the app is closing'}.`);
    return { ...outcome, read };
  }

  /**
   * The lookup of an unknown attempt by its reference (waiting as long as the rate limit needs when
   * it is the automatic settling's), as readStatus, except that a read the gateway was not asked
   * because it cannot read by that key comes back (notAsked) for the attempt to be settled otherwise.
   */
  async lookUp(profile: Profile, request: ReadRequest, wait: 'person' | 'background' = 'person'): Promise<StatusReadOutcome> {
    const outcome = await this.deps.reader.readFor(profile, request, wait);
    for (const id of outcome.contradictedNotifications) await this.deps.notificationChanged?.(id);
    if (outcome.rowId !== null) await this.publish({ subject: outcome.subject, rowId: outcome.rowId });
    if (outcome.read === null && outcome.notAsked === null) throw new ServiceError('unavailable', `The status read was not sent: ${outcome.detail ?? 'the app is closing'}.`);
    return outcome;
  }

  now(): Date {
    return new Date(this.deps.clock.now());
  }
}
