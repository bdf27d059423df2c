import { Alert, Button, Checkbox, Group, Text } from '@mantine/core';
import dayjs from 'dayjs';

/** The live confirmation a review asks for (only when main requires it). */
export interface ReviewConfirmation {
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  testId: string;
}

/**
 * The end of a review, a payout's or a batch's alike: the live confirmation, why it was not sent,
 * then back, how long the review stays valid, and send.
 */
export function ReviewActions(props: {
  confirmation: ReviewConfirmation | null;
  error?: string | null;
  errorTestId?: string;
  backLabel: string;
  onBack: () => void;
  expiresAt: string;
  sendLabel: string;
  sendColor: string | undefined;
  canSend: boolean;
  sending: boolean;
  onSend: () => void;
}) {
  const { confirmation } = props;
  return (
    <>
      {confirmation && (
        <Checkbox color="red" label={confirmation.label} checked={confirmation.checked} onChange={(event) => confirmation.onChange(event.currentTarget.checked)} data-testid={confirmation.testId} />
      )}
      {props.error && (
        <Alert color="red" title="Not sent" role="alert" data-testid={props.errorTestId}>
          {props.error}
        </Alert>
      )}
      <Group justify="space-between">
        <Button variant="default" onClick={props.onBack} disabled={props.sending}>
          {props.backLabel}
        </Button>
        <Group gap="xs">
          <Text size="xs" c="dimmed">
            Review valid until {dayjs(props.expiresAt).format('HH:mm:ss')}
          </Text>
          <Button color={props.sendColor} onClick={props.onSend} loading={props.sending} disabled={!props.canSend}>
            {props.sendLabel}
          </Button>
        </Group>
      </Group>
    </>
  );
}
