// Where "back to the list" goes: the list as the user left it (its filters live in the hash).
import type { TransactionSubject } from '../../../shared/contract';

const lastListHash: Record<TransactionSubject, string> = { payin: '#/payins', payout: '#/payouts' };

/** Lists call this whenever their filters (their hash) change. */
export function rememberListHash(subject: TransactionSubject, hash: string): void {
  lastListHash[subject] = hash;
}

export function listHash(subject: TransactionSubject): string {
  return lastListHash[subject];
}
