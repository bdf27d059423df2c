import { Alert, Button, Group, Select, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import type { PayoutCreateForm, ProfileView, SubmitResult } from '../../../shared/contract';
import { METHOD_LABELS, PAYOUT_METHODS, type PayoutMethod } from '../../../shared/spec/methods';
import { useAction } from '../../components/use-action';
import { useApi } from '../../stores/context';
import { payoutFieldSpecs } from './fields';
import { LiveFollow } from './LiveFollow';
import { RequestEditor } from './RequestEditor';
import { newReference, samplePayoutForm } from './samples';
import { ScenarioSelect } from './ScenarioSelect';
import { SubmitResultView } from './SubmitResultView';

/** Payout playground: four methods, P/C scenarios, the raw exchange and the notification. */
export function PayoutPlayground({ profile }: { profile: ProfileView }) {
  const api = useApi();
  const action = useAction();
  const [form, setForm] = useState<PayoutCreateForm>(() => samplePayoutForm('fps'));
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [result, setResult] = useState<SubmitResult | null>(null);
  const method = (form.method ?? 'fps') as PayoutMethod;
  const email = form.customer?.email ?? '';
  const setEmail = (next: string) => setForm((current) => ({ ...current, customer: { ...current.customer, email: next } }));
  const keepEmail = (next: PayoutCreateForm): PayoutCreateForm => ({ ...next, customer: { ...next.customer, email } });

  const send = async (event: React.FormEvent) => {
    event.preventDefault();
    if (jsonError !== null || !profile.payoutsEnabled) return;
    setResult(null);
    const sent = await action.run(() => api.invoke('payouts:create', { ...form, profileId: profile.id }));
    if (sent) {
      setResult(sent);
      setForm((current) => ({ ...current, merchantReference: newReference('po') }));
    }
  };

  return (
    <Stack>
      {!profile.payoutsEnabled && (
        <Alert color="yellow" title="Payouts are not available on this profile" data-testid="payouts-disabled">
          Spec section 4, rule 3: the payout endpoints are unavailable in the provider sandbox. Use the local emulator profile (or a live one) to try payouts.
        </Alert>
      )}
      {profile.environment === 'live' && (
        <Alert color="red" title="Live profile">
          A payout sent from here moves real money.
        </Alert>
      )}
      <Group align="flex-end" grow preventGrowOverflow={false}>
        <Select
          label="Payout method"
          description="Decides the paymentDetails fields (spec 2.7)."
          data={PAYOUT_METHODS.map((m) => ({ value: m, label: `${METHOD_LABELS[m]} (${m})` }))}
          value={method}
          allowDeselect={false}
          onChange={(value) => value && setForm(keepEmail(samplePayoutForm(value as PayoutMethod)))}
        />
        <ScenarioSelect kind="payout" email={email} onEmailChange={setEmail} environment={profile.environment} />
      </Group>
      <Stack component="form" onSubmit={(event) => void send(event)}>
        <RequestEditor label="Payout request" form={form} onChange={setForm} fields={payoutFieldSpecs(method)} errors={action.fieldErrors} onJsonError={setJsonError} />
        <Group>
          <Button type="submit" loading={action.busy} disabled={jsonError !== null || !profile.payoutsEnabled}>
            Send payout
          </Button>
          <Button variant="default" onClick={() => setForm(keepEmail(samplePayoutForm(method)))}>
            Reset to sample
          </Button>
          <Text size="sm" c="dimmed">
            POST /payouts/create; mode "direct", merchant and notificationUrl from the profile.
          </Text>
        </Group>
      </Stack>
      {action.error && (
        <Alert color="red" title="Not sent" role="alert">
          {action.error}
        </Alert>
      )}
      {result && <SubmitResultView result={result} />}
      {result?.payout && <LiveFollow key={result.payout.id} subject="payout" id={result.payout.id} waitingFor="v2_payout_notification" />}
    </Stack>
  );
}
