import { Alert, Text } from '@mantine/core';
import type { BatchView } from '../../../shared/contract';

/**
 * Where the sent payouts stand, and why some still wait after the batch has ended: "sent" means
 * the gateway accepted the payout; its final state comes from a notification, and a notification
 * is only a claim until a status read confirms it.
 */
export function BatchFinalStates({ batch }: { batch: BatchView }) {
  const { paid, failed, processing, awaitingVerification } = batch.outcomes;
  if (batch.counts.sent === 0) return null;
  const waitingForNotification = processing - awaitingVerification;
  const ended = batch.state === 'done' || batch.state === 'cancelled';
  return (
    <Alert color={processing > 0 ? 'blue' : 'teal'} variant="light" title={processing > 0 && ended ? `The batch has ended; ${processing} of its payouts wait for their final state` : 'Final states'} data-testid="batch-final-states">
      <Text size="sm" data-testid="batch-outcomes">
        So far: {paid} paid (P200) · {failed} failed · {processing} waiting for their final state
        {processing > 0 ? ` (${waitingForNotification} for the gateway's notification, ${awaitingVerification} notified and waiting for the status read that confirms it)` : ''}
      </Text>
      <Text size="sm" mt={4}>
        “Sent” means the gateway accepted the payout (P100/P101); the batch ends when every payout is sent. The final state, paid (P200) or failed (a C-code), comes
        later from the gateway's v2_payout_notification. A notification carries no signature, so Paydesk confirms each one with a status read before it shows the
        final state here. Nothing is sent again while they wait.
      </Text>
    </Alert>
  );
}
