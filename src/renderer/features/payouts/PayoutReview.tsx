import { Alert, Button, Card, Checkbox, Group, Loader, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import type { BatchRowForm, LimitCheckResult, ProfileView } from '../../../shared/contract';
import { METHOD_LABELS } from '../../../shared/spec/methods';
import { useApi } from '../../stores/context';
import { formatMoney } from '../transactions/format';
import { EnvironmentBanner } from './EnvironmentBanner';
import { LimitCheckList } from './LimitCheckList';
import { maskedDestination } from './mask';
import { errorMessage } from '../../../shared/error-message';

interface PayoutReviewProps {
  profile: ProfileView;
  form: BatchRowForm;
  sending: boolean;
  onBack: () => void;
  onSend: () => void;
}

function Fact({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" ff="monospace" data-testid={testId}>
        {value}
      </Text>
    </Stack>
  );
}

/**
 * The one step with a send button: what leaves, to whom (masked), through which environment, and
 * what the limits say. A live payout needs an explicit confirmation on top.
 */
export function PayoutReview({ profile, form, sending, onBack, onSend }: PayoutReviewProps) {
  const api = useApi();
  const method = String(form.method);
  const amount = form.amount ?? '';
  const currency = form.currency ?? '';
  const [limits, setLimits] = useState<{ result: LimitCheckResult | null; error: string | null }>({ result: null, error: null });
  const [liveConfirmed, setLiveConfirmed] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);

  useEffect(() => {
    let current = true;
    api
      .invoke('limits:check', { profileId: profile.id, currency, amount })
      .then((result) => current && setLimits({ result, error: null }))
      .catch((error: unknown) => current && setLimits({ result: null, error: errorMessage(error) }));
    return () => {
      current = false;
    };
  }, [api, profile.id, currency, amount]);

  const live = profile.environment === 'live';
  const overLimit = limits.result !== null && !limits.result.ok;
  const canSend = profile.payoutsEnabled && limits.result !== null && !overLimit && (!live || liveConfirmed);
  const customer = form.customer ?? {};

  return (
    <Card withBorder data-testid="payout-review">
      <Stack gap="md">
        <Title order={3} ref={heading} tabIndex={-1}>
          Review the payout
        </Title>
        <EnvironmentBanner environment={profile.environment} profileName={profile.name} />
        <Stack gap={2}>
          <Text size="xs" c="dimmed">
            Amount
          </Text>
          <Text fz={28} fw={700} ff="monospace" data-testid="review-amount">
            {formatMoney(amount, currency, method)}
          </Text>
          <Text size="xs" c="dimmed">
            Exactly {amount} {currency}, by {(METHOD_LABELS as Record<string, string>)[method] ?? method}
          </Text>
        </Stack>
        <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="sm">
          <Fact label="Beneficiary" value={`${customer.firstName ?? ''} ${customer.lastName ?? ''}`.trim()} testId="review-beneficiary" />
          <Fact label="E-mail" value={customer.email ?? ''} />
          <Fact label="Country" value={form.country ?? ''} />
          {maskedDestination(method, form.paymentDetails ?? {}).map((line) => (
            <Fact key={line.label} label={line.label} value={line.value} testId={`review-${line.label.toLowerCase().replace(/\s+/g, '-')}`} />
          ))}
          <Fact label="Merchant reference" value={form.merchantReference ?? 'assigned by Paydesk when sent'} />
          <Fact label="Profile" value={`${profile.name} (${profile.environment})`} testId="review-profile" />
        </SimpleGrid>
        <Stack gap={4}>
          <Text fw={500} size="sm">
            Limits
          </Text>
          {limits.error ? (
            <Alert color="red" title="The limits could not be checked">
              {limits.error}
            </Alert>
          ) : limits.result === null ? (
            <Group gap="xs">
              <Loader size="xs" aria-label="Checking the limits" />
              <Text size="sm" c="dimmed">
                Checking the limits…
              </Text>
            </Group>
          ) : (
            <LimitCheckList result={limits.result} currency={currency} />
          )}
          {overLimit && (
            <Alert color="red" title="Over a payout limit" data-testid="over-limit">
              Main refuses this payout as it stands: lower the amount, or change the limit under “Limits” (the change is audited).
            </Alert>
          )}
        </Stack>
        {live && (
          <Checkbox
            color="red"
            label="I have checked the beneficiary and the amount: send this LIVE payout (real money)."
            checked={liveConfirmed}
            onChange={(event) => setLiveConfirmed(event.currentTarget.checked)}
          />
        )}
        <Group justify="space-between">
          <Button variant="default" onClick={onBack} disabled={sending}>
            Back to edit
          </Button>
          <Button color={live ? 'red' : undefined} onClick={onSend} loading={sending} disabled={!canSend}>
            {live ? 'Send LIVE payout' : 'Send payout'}
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
