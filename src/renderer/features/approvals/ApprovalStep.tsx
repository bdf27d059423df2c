import { Alert, Stack, Text, TextInput } from '@mantine/core';
import type { ApprovalKind, ApprovalNeed } from '../../../shared/contract';

interface ApprovalStepWording {
  /** What is typed again on a desk: a payout's amount, or a batch's total. */
  noun: 'amount' | 'total';
  /** What the send does once confirmed ("send it", "start it"). */
  then: string;
  /** What happens to it while it waits for an approver. */
  waits: string;
  /** `${prefix}-approval`, `${prefix}-typed-amount`. */
  testIdPrefix: string;
}

/** How the step speaks of what is approved: one payout, or a batch as a whole. */
const WORDING: Record<ApprovalKind, ApprovalStepWording> = {
  payout: {
    noun: 'amount',
    then: 'send it',
    waits: 'it waits in Approvals until another person with the approver role approves it (then it is sent) or rejects it.',
    testIdPrefix: 'review',
  },
  batch: {
    noun: 'total',
    then: 'start it',
    waits: 'the batch waits in Approvals until another person with the approver role approves it as a whole (then it starts) or rejects it.',
    testIdPrefix: 'batch-review',
  },
};

interface ApprovalStepProps {
  approval: ApprovalNeed;
  kind: ApprovalKind;
  typed: string;
  onTyped: (value: string) => void;
}

/**
 * The second step a review's send needs under the approval policy (nothing when none applies):
 * on a team server, that it goes to an approver instead of out; on a desk, the amount typed again.
 */
export function ApprovalStep({ approval, kind, typed, onTyped }: ApprovalStepProps) {
  const { noun, then, waits, testIdPrefix } = WORDING[kind];
  if (approval.step === 'none') return null;
  const needsApproval = approval.step === 'approval';
  return (
    <Alert color="yellow" title={needsApproval ? 'Needs approval' : `Confirm the ${noun}`} data-testid={`${testIdPrefix}-approval`}>
      <Stack gap="xs">
        <Text size="sm">{approval.policy}</Text>
        <Text size="sm">{needsApproval ? `Nothing is sent now: ${waits}` : `Type the ${noun} again to ${then}.`}</Text>
        {!needsApproval && (
          <TextInput
            label={`Type the ${noun} (${approval.amount ?? ''} ${approval.currency ?? ''}) to confirm`}
            value={typed}
            onChange={(event) => onTyped(event.currentTarget.value)}
            autoComplete="off"
            inputMode="decimal"
            w={260}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            data-testid={`${testIdPrefix}-typed-amount`}
          />
        )}
      </Stack>
    </Alert>
  );
}
