import { Alert, Badge, Button, Card, Checkbox, CloseButton, Group, Loader, SimpleGrid, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import type { ApprovalDecision } from '../../../shared/contract';
import { allowedRolesText, ROLE_LABELS } from '../../../shared/contract/roles';
import { DateTime } from '../../components/DateTime';
import { LoadError } from '../../components/LoadError';
import { useAction } from '../../components/use-action';
import { useLiveQuery } from '../../components/use-live-query';
import { useAccess } from '../../stores/access';
import { useApi, useApp } from '../../stores/context';
import { EnvironmentBanner } from '../payouts/EnvironmentBanner';
import { ReviewedPayoutFacts } from '../payouts/PayoutReview';
import { formatMoney } from '../transactions/format';
import { ApprovalAmount } from './ApprovalsScreen';
import { STATE_LABELS } from './approval-states';
import { counted } from '../../../shared/counted';

function Fact({ label, children, testId }: { label: string; children: React.ReactNode; testId?: string }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" data-testid={testId} style={{ overflowWrap: 'anywhere' }}>
        {children}
      </Text>
    </Stack>
  );
}

/**
 * One request for approval, as the maker reviewed it (the same facts as the review: amount,
 * beneficiary, masked destination, profile), with the maker, the policy and the times; an approver
 * other than the maker approves it (which sends it) or rejects it with a reason; the maker may
 * withdraw it while their role allows it. The server refuses whatever the screen would not offer.
 */
export function ApprovalDetail({ id, onClose }: { id: number; onClose: () => void }) {
  const api = useApi();
  const person = useApp((state) => state.team?.person ?? null);
  const { can } = useAccess();
  const query = useLiveQuery(() => api.invoke('approvals:get', { id }), [id], { pushes: ['approvals:approval-changed'], throttleMs: 200 });
  const decide = useAction();
  const [reason, setReason] = useState('');
  const [cardNum, setCardNum] = useState('');
  const [checked, setChecked] = useState(false);
  const [decision, setDecision] = useState<ApprovalDecision | null>(null);

  if (query.error) return <LoadError title={`Approval ${id} could not be read`} message={query.error} onRetry={query.reload} />;
  const approval = query.data;
  if (!approval) return <Loader size="sm" aria-label="Loading the approval" />;

  const mine = person !== null && approval.maker.id === person.id;
  const awaiting = approval.state === 'awaiting';
  const mayDecide = awaiting && !mine && can('approvals:approve');
  const mayWithdraw = can('approvals:withdraw');
  const live = approval.profile.environment === 'live';

  // Done or refused, the request is read again: a refusal may mean another person decided it
  // first (main's message says who, what and when), and the screen then shows it as it now is.
  const approve = async () => {
    const done = await decide.run(() => api.invoke('approvals:approve', { id, ...(approval.needsCardNumber ? { cardNum } : {}) }), approval.kind === 'payout' ? 'Approved: the payout is sent' : 'Approved: the batch has started');
    if (done) setDecision(done);
    query.reload();
  };
  const reject = async () => {
    await decide.run(() => api.invoke('approvals:reject', { id, reason }), `Approval ${id} rejected`);
    query.reload();
  };
  const withdraw = async () => {
    await decide.run(() => api.invoke('approvals:withdraw', { id }), `Approval ${id} withdrawn`);
    query.reload();
  };

  return (
    <Card withBorder data-testid="approval-detail" data-state={approval.state}>
      <Stack gap="md">
        <Group justify="space-between" align="flex-start">
          <Title order={3}>
            Approval {approval.id}: {approval.kind === 'payout' ? `payout ${approval.subject}` : `batch ${approval.batch?.name ?? approval.subject}`}
          </Title>
          <Group gap="xs">
            <Badge color={STATE_LABELS[approval.state].color} variant="light" data-testid="approval-state">
              {STATE_LABELS[approval.state].label}
            </Badge>
            <CloseButton aria-label="Close the approval" onClick={onClose} />
          </Group>
        </Group>
        <EnvironmentBanner environment={approval.profile.environment} profileName={approval.profile.name} />
        {approval.payout ? (
          <ReviewedPayoutFacts payout={approval.payout} profile={approval.profile} />
        ) : (
          <Stack gap={2}>
            <Text size="xs" c="dimmed">
              Batch total
            </Text>
            <Text fz={28} fw={700} data-testid="approval-amount">
              <ApprovalAmount approval={approval} />
            </Text>
            <Text size="sm" ff="monospace">
              {counted(approval.itemCount, 'payout')} · {approval.batch?.totals.map((t) => `${formatMoney(t.amount, t.currency)} (${t.count})`).join(' · ')}
            </Text>
          </Stack>
        )}
        <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="sm">
          <Fact label="Maker" testId="approval-maker">
            {approval.maker.name}
            {mine ? ' (you)' : ''}
          </Fact>
          <Fact label="Policy">{approval.policy}</Fact>
          <Fact label="Submitted">
            <DateTime iso={approval.createdAt} />
          </Fact>
          <Fact label={awaiting ? 'Expires' : 'Decided'}>
            <DateTime iso={awaiting ? approval.expiresAt : approval.decidedAt} />
          </Fact>
          {approval.decidedBy && <Fact label="Decided by">{approval.decidedBy.name}</Fact>}
          {approval.reason && <Fact label="Reason">{approval.reason}</Fact>}
          {approval.idempotencyKey && <Fact label="Sent under Idempotency-Key">{approval.idempotencyKey}</Fact>}
          <Fact label="Reviewed body (HMAC-SHA256)">
            <Text span size="xs" ff="monospace">
              {approval.bodyHash}
            </Text>
          </Fact>
        </SimpleGrid>
        {decision?.payout && (
          <Alert color={decision.payout.outcome === 'succeeded' ? 'teal' : 'yellow'} title="Sent" data-testid="approval-sent">
            {decision.payout.message}
          </Alert>
        )}
        {decide.error && (
          <Alert color="red" title="Not done" role="alert" data-testid="approval-error">
            {decide.error}
          </Alert>
        )}
        {awaiting && mine && (
          <Group justify="space-between">
            <Text size="sm" c="dimmed">
              You submitted this: another person with the approver role decides it.
            </Text>
            {/* The role read now: a role changed while this is open (pushed as team:session-changed) takes the button away. */}
            {mayWithdraw ? (
              <Button variant="default" color="red" onClick={() => void withdraw()} loading={decide.busy}>
                Withdraw
              </Button>
            ) : (
              <Text size="sm" c="dimmed" data-testid="withdraw-note">
                Withdrawing it is for {allowedRolesText('approvals:withdraw')}; your role is {person ? ROLE_LABELS[person.role] : ''}.
              </Text>
            )}
          </Group>
        )}
        {awaiting && !mine && !can('approvals:approve') && (
          <Text size="sm" c="dimmed">
            It awaits a person with the approver role.
          </Text>
        )}
        {mayDecide && (
          <Stack gap="sm">
            {approval.needsCardNumber && (
              <TextInput
                label="Card number (type it again: it is never stored)"
                value={cardNum}
                onChange={(event) => setCardNum(event.currentTarget.value)}
                autoComplete="off"
                inputMode="numeric"
                w={300}
                error={decide.fieldErrors.cardNum}
              />
            )}
            <Checkbox
              color={live ? 'red' : undefined}
              label={approval.kind === 'payout' ? `I have checked the beneficiary and the amount: approve and send this ${live ? 'LIVE ' : ''}payout.` : `I have checked the batch: approve and start its ${counted(approval.itemCount, `${live ? 'LIVE ' : ''}payout`)}.`}
              checked={checked}
              onChange={(event) => setChecked(event.currentTarget.checked)}
              data-testid="approval-confirm"
            />
            <Group align="flex-end" justify="space-between">
              <Textarea label="Reason (to reject)" placeholder="Why it should not be sent" value={reason} onChange={(event) => setReason(event.currentTarget.value)} autosize minRows={1} w={360} error={decide.fieldErrors.reason} />
              <Group gap="xs">
                <Button variant="default" color="red" onClick={() => void reject()} loading={decide.busy} disabled={reason.trim().length < 3}>
                  Reject
                </Button>
                <Button color={live ? 'red' : 'teal'} onClick={() => void approve()} loading={decide.busy} disabled={!checked || (approval.needsCardNumber && cardNum.trim() === '')}>
                  {approval.kind === 'payout' ? 'Approve and send' : 'Approve and start'}
                </Button>
              </Group>
            </Group>
          </Stack>
        )}
      </Stack>
    </Card>
  );
}
