import { Button, Group, Select, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import type { PayinCreateForm, ProfileView, SubmitResult } from '../../../shared/contract';
import { METHOD_LABELS, PAYIN_METHODS, type PayinMethod } from '../../../shared/spec/methods';
import { useAction } from '../../components/use-action';
import { referenceToSend, type ProgressMatch } from '../../components/use-attempt-progress';
import { useApi } from '../../stores/context';
import { payinFieldSpecs } from './fields';
import { RequestEditor } from './RequestEditor';
import { newReference, samplePayinForm } from '../../../shared/spec/samples';
import { ScenarioSelect } from './ScenarioSelect';
import { SendProgress, SentResult } from './SendOutcome';

/**
 * Pay-in playground: any of the eight methods with a valid pre-filled request, a scenario, the
 * raw exchange, the hosted redirect page and the notification as it arrives.
 */
export function PayinPlayground({ profile }: { profile: ProfileView }) {
  const api = useApi();
  const action = useAction();
  const [form, setForm] = useState<PayinCreateForm>(() => samplePayinForm('credit_card'));
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [result, setResult] = useState<SubmitResult | null>(null);
  const [inFlight, setInFlight] = useState<ProgressMatch | null>(null);
  const method = (form.payment_method ?? 'credit_card') as PayinMethod;
  const fields = payinFieldSpecs(method);

  const send = async (event: React.FormEvent) => {
    event.preventDefault();
    if (jsonError !== null) return;
    setResult(null);
    const request_id = referenceToSend(form.request_id, 'pg');
    setInFlight({ profileId: profile.id, kind: 'payin', reference: request_id });
    const sent = await action.run(() => api.invoke('payins:create', { ...form, request_id, profileId: profile.id }));
    setInFlight(null);
    // A request_id names one attempt: the next send gets a new one. The CVV is asked for every time.
    setForm((current) => ({ ...current, cardCvv: current.cardCvv === undefined ? undefined : '', ...(sent ? { request_id: newReference('pg') } : {}) }));
    if (sent) setResult(sent);
  };

  return (
    <Stack>
      <Group align="flex-end" grow preventGrowOverflow={false}>
        <Select
          label="Payment method"
          description="Decides which fields are required (spec 2.1)."
          data={PAYIN_METHODS.map((m) => ({ value: m, label: `${METHOD_LABELS[m]} (${m})` }))}
          value={method}
          allowDeselect={false}
          onChange={(value) => value && setForm((current) => ({ ...samplePayinForm(value as PayinMethod), email: current.email }))}
        />
        <ScenarioSelect kind="payin" email={form.email ?? ''} onEmailChange={(email) => setForm((current) => ({ ...current, email }))} environment={profile.environment} />
      </Group>
      <Stack component="form" onSubmit={(event) => void send(event)}>
        <RequestEditor label="Pay-in request" form={form} onChange={setForm} fields={fields} errors={action.fieldErrors} onJsonError={setJsonError} />
        <Group>
          <Button type="submit" loading={action.busy} disabled={jsonError !== null}>
            Send pay-in
          </Button>
          <Button variant="default" onClick={() => setForm((current) => ({ ...samplePayinForm(method), email: current.email }))}>
            Reset to sample
          </Button>
          <Text size="sm" c="dimmed">
            POST /payment/create with a fresh Idempotency-Key.
          </Text>
        </Group>
      </Stack>
      <SendProgress inFlight={inFlight} error={action.error} />
      <SentResult result={result} subject="payin" waitingFor="v2_payin_notification" />
    </Stack>
  );
}
