import { Accordion, Alert, Button, Group, PasswordInput, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import type { PayinCreateForm, ProfileView, SubmitResult, TokenView } from '../../../shared/contract';
import { AttemptProgressPanel } from '../../components/AttemptProgressPanel';
import { useAction } from '../../components/use-action';
import { referenceToSend, type ProgressMatch } from '../../components/use-attempt-progress';
import { useApi } from '../../stores/context';
import { FieldInputs } from './FieldInputs';
import { payinFieldSpecs } from './fields';
import { LiveFollow } from './LiveFollow';
import { setField } from './request-json';
import { newReference } from '../../../shared/spec/samples';
import { ScenarioSelect } from './ScenarioSelect';
import { SubmitResultView } from './SubmitResultView';

/** Shown up front; the customer's other fields are pre-filled and folded away. */
const MAIN_FIELDS = ['amount', 'currency', 'email'];

interface TokenChargeProps {
  profile: ProfileView;
  token: TokenView | null;
  /** The pay-in fields without card data (shared with the tokenize form's customer). */
  initial: PayinCreateForm;
}

/**
 * Pay with a vaulted token. The CVV is asked for on every charge (spec 2.5) and lives only in its
 * input until the charge starts: it is cleared before the request is even sent, never kept in any
 * store, and main records the request with it redacted.
 */
export function TokenCharge({ profile, token, initial }: TokenChargeProps) {
  const api = useApi();
  const action = useAction();
  const [form, setForm] = useState<PayinCreateForm>(() => ({ ...initial, request_id: newReference('pg-charge') }));
  const [cvv, setCvv] = useState('');
  const [result, setResult] = useState<SubmitResult | null>(null);
  const [inFlight, setInFlight] = useState<ProgressMatch | null>(null);
  const fields = payinFieldSpecs(form.payment_method ?? 'credit_card', { withoutCard: true });
  const main = fields.filter((f) => MAIN_FIELDS.includes(f.path));
  const rest = fields.filter((f) => !MAIN_FIELDS.includes(f.path));
  const update = (path: string, value: string) => setForm((current) => setField(current, path, value));

  const charge = async (event: React.FormEvent) => {
    event.preventDefault();
    if (!token || cvv.trim() === '') return;
    const cardCvv = cvv;
    setCvv('');
    setResult(null);
    const request_id = referenceToSend(form.request_id, 'pg-charge');
    setInFlight({ profileId: profile.id, kind: 'token_charge', reference: request_id });
    const sent = await action.run(() => api.invoke('tokens:charge', { ...form, request_id, profileId: profile.id, tokenId: token.id, cardCvv }));
    setInFlight(null);
    if (sent) {
      setResult(sent);
      setForm((current) => ({ ...current, request_id: newReference('pg-charge') }));
    }
  };

  return (
    <Stack component="form" onSubmit={(event) => void charge(event)}>
      {token ? (
        <Text size="sm" data-testid="charge-token">
          Charging <b>{token.brand ?? 'card'}</b> <span style={{ fontFamily: 'var(--mantine-font-family-monospace)' }}>{token.maskedPan}</span>, expiring {token.expMonth}/{token.expYear}.
        </Text>
      ) : (
        <Text size="sm" c="dimmed">
          Choose a vaulted token above.
        </Text>
      )}
      <ScenarioSelect kind="payin" email={form.email ?? ''} onEmailChange={(email) => setForm((current) => ({ ...current, email }))} environment={profile.environment} />
      <FieldInputs fields={main} form={form} errors={action.fieldErrors} onChange={update} />
      <Accordion variant="contained">
        <Accordion.Item value="customer">
          <Accordion.Control>Other pay-in fields (pre-filled)</Accordion.Control>
          <Accordion.Panel>
            <FieldInputs fields={rest} form={form} errors={action.fieldErrors} onChange={update} />
          </Accordion.Panel>
        </Accordion.Item>
      </Accordion>
      <Group align="flex-end">
        <PasswordInput
          label="CVV"
          description="Asked for on every charge; never stored."
          value={cvv}
          onChange={(event) => setCvv(event.currentTarget.value)}
          error={action.fieldErrors.cardCvv}
          autoComplete="off"
          inputMode="numeric"
          maxLength={4}
          w={240}
        />
        <Button type="submit" loading={action.busy} disabled={!token || cvv.trim() === ''}>
          Pay with token
        </Button>
      </Group>
      <AttemptProgressPanel match={inFlight} />
      {action.fieldErrors.tokenId && <Alert color="red">Token: {action.fieldErrors.tokenId}</Alert>}
      {action.error && (
        <Alert color="red" title="Not charged" role="alert">
          {action.error}
        </Alert>
      )}
      {result && <SubmitResultView result={result} />}
      {result?.payin && <LiveFollow key={result.payin.id} subject="payin" id={result.payin.id} waitingFor="v2_payin_notification" />}
    </Stack>
  );
}
