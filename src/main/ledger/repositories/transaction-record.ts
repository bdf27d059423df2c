// The shape pay-ins and payouts share, how a row maps to it, and the mismatch rule.
import { describeReason } from '../../../shared/spec/codes';
import type { StatusCategory } from '../status';
import { verificationState, type VerificationState } from '../verification-state';

export type StatusSource = 'create' | 'notification' | 'status_read';

/** The one verification state of the row (verification-state.ts). */
export type Verification = VerificationState;

/**
 * The latest notified claim (a notification moves no status, see migration 0006): unverified
 * until the gateway's own answer agrees (verified) or says something else (contradicted).
 */
export type ClaimState = 'unverified' | 'verified' | 'contradicted';

export interface TransactionRecord {
  id: number;
  profileId: string;
  method: string;
  amount: string;
  currency: string;
  email: string;
  /** null until the gateway answered. */
  statusCode: string | null;
  statusKnown: boolean;
  statusCategory: StatusCategory | null;
  final: boolean;
  reasonCode: string | null;
  reasonKnown: boolean;
  statusChangedAt: string | null;
  gatewayCreatedAt: string | null;
  attemptId: number | null;
  lastNotifiedStatus: string | null;
  lastNotifiedAt: string | null;
  lastVerifiedStatus: string | null;
  lastVerifiedAt: string | null;
  /** The state of the latest notified claim; null when nothing was notified. */
  claimState: ClaimState | null;
  /** A final result contradicted by another source (kept forever; needs a human). */
  conflict: string | null;
  /** The first contradiction about the status (notification vs status read or create answer). */
  statusConflict: string | null;
  /** The first contradiction about the money facts (amount, currency, reference) of a notification or read. */
  factsConflict: string | null;
  mismatch: boolean;
  verification: Verification;
  /**
   * The notification link the transaction was sent with, when a remote gateway cannot post to it
   * (loopback): its notifications cannot arrive, so its status is polled. Null otherwise.
   */
  notifyUnreachable: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface BaseRow {
  id: number;
  profile_id: string;
  method: string;
  amount: string;
  currency: string;
  email: string;
  status_code: string | null;
  status_category: StatusCategory | null;
  final: number;
  reason_code: string | null;
  status_changed_at: string | null;
  gateway_created_at: string | null;
  attempt_id: number | null;
  last_notified_status: string | null;
  last_notified_at: string | null;
  last_verified_status: string | null;
  last_verified_at: string | null;
  verified_against: string | null;
  claim_state: ClaimState | null;
  conflict: string | null;
  status_conflict: string | null;
  facts_conflict: string | null;
  mismatch: number;
  notify_unreachable: string | null;
  created_at: string;
  updated_at: string;
}

export function toBaseRecord(r: BaseRow): TransactionRecord {
  const final = r.final === 1;
  const mismatch = r.mismatch === 1;
  return {
    id: r.id,
    profileId: r.profile_id,
    method: r.method,
    amount: r.amount,
    currency: r.currency,
    email: r.email,
    statusCode: r.status_code,
    statusKnown: r.status_category !== null && r.status_category !== 'unknown',
    statusCategory: r.status_category,
    final,
    reasonCode: r.reason_code,
    reasonKnown: r.reason_code === null || describeReason(r.reason_code).known,
    statusChangedAt: r.status_changed_at,
    gatewayCreatedAt: r.gateway_created_at,
    attemptId: r.attempt_id,
    lastNotifiedStatus: r.last_notified_status,
    lastNotifiedAt: r.last_notified_at,
    lastVerifiedStatus: r.last_verified_status,
    lastVerifiedAt: r.last_verified_at,
    claimState: r.claim_state,
    conflict: r.conflict,
    statusConflict: r.status_conflict,
    factsConflict: r.facts_conflict,
    mismatch,
    verification: verificationState({
      statusCode: r.status_code,
      final,
      statusKnown: r.status_category !== null && r.status_category !== 'unknown',
      claimState: r.claim_state,
      lastNotifiedStatus: r.last_notified_status,
      lastVerifiedStatus: r.last_verified_status,
      mismatch,
    }),
    notifyUnreachable: r.notify_unreachable,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/**
 * The columns a change of status reads and writes (TransactionsStore.changeStatus), as a record
 * names them: the rule that decides the change is the services' (services/status-change.ts).
 */
export interface StatusColumns {
  statusCode: string | null;
  statusCategory: StatusCategory | null;
  final: boolean;
  reasonCode: string | null;
  statusChangedAt: string | null;
  lastNotifiedStatus: string | null;
  lastNotifiedAt: string | null;
  lastVerifiedStatus: string | null;
  lastVerifiedAt: string | null;
  /** The status held when the last status read was taken. */
  verifiedAgainst: string | null;
  claimState: ClaimState | null;
  conflict: string | null;
  statusConflict: string | null;
  mismatch: boolean;
}

/** A row's status columns. */
export function statusColumnsOf(r: BaseRow): StatusColumns {
  return {
    statusCode: r.status_code,
    statusCategory: r.status_category,
    final: r.final === 1,
    reasonCode: r.reason_code,
    statusChangedAt: r.status_changed_at,
    lastNotifiedStatus: r.last_notified_status,
    lastNotifiedAt: r.last_notified_at,
    lastVerifiedStatus: r.last_verified_status,
    lastVerifiedAt: r.last_verified_at,
    verifiedAgainst: r.verified_against,
    claimState: r.claim_state,
    conflict: r.conflict,
    statusConflict: r.status_conflict,
    mismatch: r.mismatch === 1,
  };
}

/** The row with these status columns, changed at `at`. */
export function withStatusColumns<Row extends BaseRow>(row: Row, s: StatusColumns, at: string): Row {
  return {
    ...row,
    status_code: s.statusCode,
    status_category: s.statusCategory,
    final: s.final ? 1 : 0,
    reason_code: s.reasonCode,
    status_changed_at: s.statusChangedAt,
    last_notified_status: s.lastNotifiedStatus,
    last_notified_at: s.lastNotifiedAt,
    last_verified_status: s.lastVerifiedStatus,
    last_verified_at: s.lastVerifiedAt,
    verified_against: s.verifiedAgainst,
    claim_state: s.claimState,
    conflict: s.conflict,
    status_conflict: s.statusConflict,
    mismatch: s.mismatch ? 1 : 0,
    updated_at: at,
  };
}
