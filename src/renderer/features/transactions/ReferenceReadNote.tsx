import { Alert, Code, Text } from '@mantine/core';
import { DateTime } from '../../components/DateTime';
import type { LoadedTransaction } from './use-transaction';

/** The payout's gateway refusal to read payouts by merchantReference, when it matters (no payout_id yet); null otherwise. */
export function referenceReadRefusal(data: LoadedTransaction) {
  return data.subject === 'payout' && data.view.payoutId === null ? data.referenceReadRefused : null;
}

/**
 * Said once on a payout's page, where its create answer was lost and its gateway reads payouts by
 * payout_id only: main no longer asks it by merchantReference (the one rejected read is in the
 * timeline), and a resume under the same key is what settles it. `canResume`: whether this person
 * may resume it (the settle panel's button), else who can.
 */
export function ReferenceReadNote({ data, canResume }: { data: LoadedTransaction; canResume: boolean }) {
  const refusal = referenceReadRefusal(data);
  // Said where its outcome is open (a create refused outright has nothing to settle).
  const open = data.view.attempt?.state === 'unknown' || data.view.attempt?.state === 'prepared';
  if (!refusal || !open) return null;
  return (
    <Alert color="yellow" title="This gateway reads payouts by payout_id only" data-testid="reference-read-refused">
      <Text size="sm">
        Asked for this payout by its merchantReference at <DateTime iso={refusal.at} />, it answered <Code>{refusal.answer}</Code>: it cannot look a payout up without the
        payout_id its lost answer held. Paydesk does not ask it that way again, for any payout of this profile.{' '}
        {canResume
          ? 'Resume under the same key settles it: the gateway answers a key it knows with its first answer, payout_id included, and creates nothing twice.'
          : 'A person who sends payouts settles it by resuming it under the same key: the gateway answers a key it knows with its first answer, and creates nothing twice.'}
      </Text>
    </Alert>
  );
}
