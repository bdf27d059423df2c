import { Alert, Anchor, Button, Group, Stack, Text } from '@mantine/core';
import type { ApprovalView } from '../../../shared/contract';
import { Amount } from '../../components/Amount';
import { DateTime } from '../../components/DateTime';
import { counted } from '../../../shared/counted';

/** What a maker sees once a payout or batch is submitted for approval: nothing was sent; who sends it, and when it expires. */
export function SubmittedForApproval({ approval, onAnother, anotherLabel = 'Another payout' }: { approval: ApprovalView; onAnother?: () => void; anotherLabel?: string }) {
  return (
    <Alert color="yellow" title={`Submitted for approval (#${approval.id})`} data-testid="submitted-for-approval" data-approval-id={approval.id}>
      <Stack gap="xs">
        <Text size="sm">
          {approval.kind === 'payout' ? `Payout ${approval.subject}` : `Batch ${approval.batch?.name ?? approval.subject} (${counted(approval.itemCount, 'payout')})`} of{' '}
          {approval.kind === 'payout' || approval.currency.length === 3 ? <Amount value={approval.amount} currency={approval.currency} /> : approval.amount} was not sent: it awaits another person with the approver role, who
          sends it by approving it. It expires <DateTime iso={approval.expiresAt} />.
        </Text>
        <Text size="sm">{approval.policy}</Text>
        <Group gap="sm">
          <Anchor href={`#/approvals/${approval.id}`}>Open it in Approvals</Anchor>
          {onAnother && (
            <Button size="xs" variant="default" onClick={onAnother}>
              {anotherLabel}
            </Button>
          )}
        </Group>
      </Stack>
    </Alert>
  );
}
