// Where a status code sits in a transaction's life, from the codes catalogue, and whether a new
// code may replace the current one. States only move forward: pending codes in catalogue order,
// then unknown codes (kept as sent, never final), then final codes, which never change again.
import { PAYIN_STATUS_CATALOGUE, PAYOUT_STATUS_CATALOGUE, type StatusCategory } from '../../shared/spec/codes';
import { TRANSACTION_KINDS, type TransactionKind } from '../transaction-kinds';

export type { TransactionKind } from '../transaction-kinds';
export type { StatusCategory };

export interface StatusFacts {
  code: string;
  known: boolean;
  final: boolean;
  category: StatusCategory;
}

const pendingOrder: Record<TransactionKind, readonly string[]> = {
  payin: PAYIN_STATUS_CATALOGUE.filter((e) => !e.final).map((e) => String(e.code)),
  payout: PAYOUT_STATUS_CATALOGUE.filter((e) => !e.final).map((e) => String(e.code)),
};

export function statusFacts(kind: TransactionKind, code: string | number): StatusFacts {
  const info = TRANSACTION_KINDS[kind].describeStatus(code);
  // A known code is normalised ("0200" → "200"); an unknown one is kept exactly as sent.
  return { code: info.known ? String(info.code) : String(code), known: info.known, final: info.final, category: info.category };
}

function rank(kind: TransactionKind, facts: StatusFacts): number {
  if (facts.final) return Number.MAX_SAFE_INTEGER;
  const pending = pendingOrder[kind].indexOf(facts.code);
  return pending >= 0 ? pending : pendingOrder[kind].length;
}

/** Negative when stage a comes before stage b, 0 for the same rank, positive after. */
export function compareStages(kind: TransactionKind, a: StatusFacts, b: StatusFacts): number {
  return Math.sign(rank(kind, a) - rank(kind, b));
}

/**
 * What the gateway's own answer (create answer or status read) says about a notified claim:
 * verified (same status, or the gateway has moved past a pending claim), contradicted (another
 * final result), ahead (the claim is later than what the gateway says now: read again later).
 */
export type ClaimResolution = 'verified' | 'contradicted' | 'ahead';

export function resolveClaim(kind: TransactionKind, claim: StatusFacts, gateway: StatusFacts): ClaimResolution {
  if (claim.code === gateway.code) return 'verified';
  if (gateway.final) return claim.final ? 'contradicted' : 'verified';
  return compareStages(kind, gateway, claim) >= 0 && !claim.final ? 'verified' : 'ahead';
}

/**
 * advanced: the new code replaces the current one. unchanged: same code. stale: an earlier stage
 * arriving late (out-of-order delivery), ignored. conflict: a different final code than the final
 * one we hold, which is never applied and needs a human.
 */
export type TransitionOutcome = 'advanced' | 'unchanged' | 'stale' | 'conflict';

export function decideTransition(kind: TransactionKind, current: StatusFacts | null, incoming: StatusFacts): TransitionOutcome {
  if (current === null) return 'advanced';
  if (current.code === incoming.code) return 'unchanged';
  if (current.final) return incoming.final ? 'conflict' : 'stale';
  return rank(kind, incoming) >= rank(kind, current) ? 'advanced' : 'stale';
}
