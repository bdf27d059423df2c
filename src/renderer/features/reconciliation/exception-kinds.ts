import type { ExceptionKind, ExceptionRow } from '../../../shared/contract';

/** The exception lists, in the order finance works through them, with what each one means. */
export const exceptionKinds: { kind: ExceptionKind; label: string; explains: string }[] = [
  { kind: 'status_mismatch', label: 'Status mismatch', explains: 'What was notified contradicts what the gateway says (or said) about the same transaction.' },
  { kind: 'amount_mismatch', label: 'Amount mismatch', explains: 'A notification or status read carries another amount or currency than the ledger.' },
  { kind: 'notified_not_verified', label: 'Notified, not verified', explains: 'A notification claimed news that no gateway answer has confirmed yet: run a sweep.' },
  { kind: 'orphans', label: 'Orphans', explains: 'Notifications for a transaction the ledger does not know (yet).' },
  { kind: 'pending_too_long', label: 'Pending too long', explains: 'Not final, older than the threshold, and no final status notified.' },
  { kind: 'payouts_stuck', label: 'Payouts stuck', explains: 'Payouts still in P100 / P101 after the threshold.' },
  {
    kind: 'unknown_attempts',
    label: 'Unknown outcomes',
    explains: 'Create calls whose answer never came. Each is settled under its own Idempotency-Key, never with a new attempt: a pay-in by a status read, a payout by resuming it (a live one after its review). Open one to settle it.',
  },
  { kind: 'duplicates', label: 'Duplicates', explains: 'Repeated deliveries of the same news; harmless, listed for completeness.' },
];

/**
 * A row's "notified / read" in words, for its tooltip. On a mismatch the notified claim is the one
 * that contradicts (main sends it as notifiedStatus), so the sentence says it contradicts.
 */
export function notifiedAndReadText(row: Pick<ExceptionRow, 'notifiedStatus' | 'verifiedStatus' | 'statusCode' | 'verification'>): string {
  const read = row.verifiedStatus ?? 'none yet';
  if (row.verification === 'mismatch' && row.notifiedStatus !== null) {
    return `A notification claimed ${row.notifiedStatus}, contradicting the ledger's ${row.statusCode ?? 'status'}. Status read: ${read}.`;
  }
  return `Notified: ${row.notifiedStatus ?? 'nothing'}. Status read: ${read}.`;
}
