// The state machine of a pay-in's or payout's status and of its notified claim, as one pure
// function: given the status columns held and what a source says, the columns to write and what
// the change was. The repositories only read and write the columns (TransactionsStore.changeStatus);
// services/payments/apply.ts hands them this function.
//
// Only the gateway's own answers (create answer, status read) move status_code, forward only
// (ledger/status.ts decideTransition). A notification carries no signature (spec 5, rule 6), so it
// is recorded as a claim: last_notified_status (forward only) and claim_state 'unverified' until a
// create answer or status read agrees ('verified') or says another final result ('contradicted', a
// mismatch). The status read's own columns (last verified) always move, even when the status does
// not, so "what was notified" and "what the gateway says" stay visible.
import type { StatusColumns, StatusSource } from '../ledger/repositories/transaction-record';
import { decideTransition, resolveClaim, statusFacts, type ClaimResolution, type TransactionKind, type TransitionOutcome } from '../ledger/status';

export interface StatusUpdate {
  statusCode: string | number;
  reasonCode?: string | null;
  source: StatusSource;
}

/** A transition of the held status, or for a notification 'claimed': it claims a later status than the one held. */
export type StatusOutcome = TransitionOutcome | 'claimed';

/** What a create answer or status read did to an unverified notified claim ('none': there was none). */
export type ClaimOutcome = ClaimResolution | 'none';

export interface StatusChange {
  next: StatusColumns;
  outcome: StatusOutcome;
  claim: ClaimOutcome;
}

/**
 * Mismatch: a final result contradicted by a notification or the create answer (conflict), or
 * the gateway's latest status read, taken while we held this final status, saying something else.
 * A read taken before the status changed (verifiedAgainst differs) proves nothing either way.
 */
export function isMismatch(s: Pick<StatusColumns, 'conflict' | 'final' | 'lastVerifiedStatus' | 'verifiedAgainst' | 'statusCode'>): boolean {
  if (s.conflict !== null) return true;
  return s.final && s.lastVerifiedStatus !== null && s.verifiedAgainst === s.statusCode && s.lastVerifiedStatus !== s.statusCode;
}

/**
 * The columns once `update` is applied to `held` at `at`, its mismatch flag derived. The outcome
 * says how the update relates to the status held: for a notification 'claimed' (later than it: read
 * the status), 'unchanged', 'stale' (older news) or 'conflict' (another final result than the one
 * held: a mismatch); for the gateway's answers 'advanced' when the status moved.
 */
export function statusChange(kind: TransactionKind, held: StatusColumns, update: StatusUpdate, at: string): StatusChange {
  const incoming = statusFacts(kind, update.statusCode);
  const current = held.statusCode === null ? null : statusFacts(kind, held.statusCode);
  const relation = decideTransition(kind, current, incoming);
  const next: StatusColumns = { ...held };
  let statusNote: string | null = null;
  let claim: ClaimOutcome = 'none';
  let outcome: StatusOutcome = relation;

  if (update.source === 'notification') {
    const notified = held.lastNotifiedStatus === null ? null : statusFacts(kind, held.lastNotifiedStatus);
    const notifiedMove = decideTransition(kind, notified, incoming);
    // Ahead of the held status: a claim, unless an earlier notification already claimed more.
    if (relation === 'advanced') outcome = notifiedMove === 'stale' || notifiedMove === 'conflict' ? notifiedMove : 'claimed';
    if (notifiedMove === 'advanced') {
      Object.assign(next, { lastNotifiedStatus: incoming.code, lastNotifiedAt: at });
      next.claimState = relation === 'advanced' ? 'unverified' : relation === 'conflict' ? 'contradicted' : 'verified';
    } else if (notifiedMove === 'conflict') {
      statusNote = `notification claims final status ${incoming.code} after another claimed ${held.lastNotifiedStatus} at ${at}`;
    }
    if (relation === 'conflict') statusNote = `final status ${held.statusCode} contradicted by notification status ${incoming.code} at ${at}`;
  } else {
    if (relation === 'advanced') {
      Object.assign(next, { statusCode: incoming.code, statusCategory: incoming.category, final: incoming.final, reasonCode: update.reasonCode ?? null, statusChangedAt: at });
    } else if (relation === 'unchanged' && next.reasonCode === null && update.reasonCode) {
      next.reasonCode = update.reasonCode;
    }
    if (update.source === 'status_read') {
      Object.assign(next, { lastVerifiedStatus: incoming.code, lastVerifiedAt: at, verifiedAgainst: next.statusCode });
    }
    if (relation === 'conflict' && update.source === 'create') statusNote = `final status ${held.statusCode} contradicted by create status ${incoming.code} at ${at}`;
    if (held.claimState === 'unverified' && held.lastNotifiedStatus !== null) {
      claim = resolveClaim(kind, statusFacts(kind, held.lastNotifiedStatus), incoming);
      if (claim === 'verified') next.claimState = 'verified';
      if (claim === 'contradicted') {
        next.claimState = 'contradicted';
        statusNote = `notified status ${held.lastNotifiedStatus} contradicted by the gateway's ${update.source.replace('_', ' ')} status ${incoming.code} at ${at}`;
      }
    }
  }
  if (statusNote !== null) {
    next.statusConflict ??= statusNote;
    next.conflict ??= statusNote;
  }
  next.mismatch = isMismatch(next);
  return { next, outcome, claim };
}

/** A create answer without a status changes none: only the mismatch flag is derived again (its gateway id may contradict the one held). */
export function statusKept(held: StatusColumns): StatusChange {
  return { next: { ...held, mismatch: isMismatch(held) }, outcome: 'unchanged', claim: 'none' };
}
