// Where a request for approval may go: it awaits one decision — approved, rejected, withdrawn by its
// maker, expired, or voided (its batch changed or was discarded) — and every decision is final.
import type { ApprovalState } from '../../../shared/contract';
import { finalStates, move, type Move, type Transitions } from '../state-machine';

export const APPROVAL_MOVES: Transitions<ApprovalState> = {
  awaiting: ['approved', 'rejected', 'withdrawn', 'expired', 'voided'],
  approved: [],
  rejected: [],
  withdrawn: [],
  expired: [],
  voided: [],
};

/** The decided states (the approvals list's "decided" scope). */
export const DECIDED: readonly ApprovalState[] = finalStates(APPROVAL_MOVES);

export const approvalMove = (from: ApprovalState, to: ApprovalState): Move<ApprovalState> => move('approval', APPROVAL_MOVES, from, to);
