import type { ExceptionKind } from '../../../shared/contract';

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
