import { Accordion, Button, Card, Checkbox, Group, Select, Stack, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { ProfileView, SubmitResult, TokenizeForm } from '../../../shared/contract';
import { CARD_FIELDS } from '../../../shared/spec/form-fields';
import { METHOD_LABELS, TOKEN_PAYIN_METHODS } from '../../../shared/spec/methods';
import { useAction } from '../../components/use-action';
import { referenceToSend, type ProgressMatch } from '../../components/use-attempt-progress';
import { useApi } from '../../stores/context';
import { FieldInputs } from './FieldInputs';
import { payinFieldSpecs, type FieldSpec } from './fields';
import { NoSigningKey } from './NoSigningKey';
import { setField } from './request-json';
import { newReference, sampleCard, sampleCardlessPayinForm } from '../../../shared/spec/samples';
import { ScenarioSelect } from './ScenarioSelect';
import { SendProgress, SentResult } from './SendOutcome';
import { TokenCharge } from './TokenCharge';
import { useVaultedTokens, VaultedTokens } from './VaultedTokens';

/** The card's inputs, with the rules of a card pay-in's fields; the number goes only into the JWT. */
const CARD_INPUTS: FieldSpec[] = payinFieldSpecs('credit_card')
  .filter((spec) => (CARD_FIELDS as readonly string[]).includes(spec.path))
  .map((spec) => (spec.path === 'cardNum' ? { ...spec, description: 'Goes only inside the merchant JWT (op=tokenize), signed in main.' } : spec));

type CardForm = Omit<TokenizeForm, 'consent'>;

/** Tokenize a card (consent required), watch it get vaulted, then pay with the token. */
export function TokenizePlayground({ profile }: { profile: ProfileView }) {
  const api = useApi();
  const action = useAction();
  const [form, setForm] = useState<CardForm>(() => ({ ...sampleCardlessPayinForm(), ...sampleCard() }));
  const [consent, setConsent] = useState(false);
  const [result, setResult] = useState<SubmitResult | null>(null);
  const [inFlight, setInFlight] = useState<ProgressMatch | null>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const [chargeDefaults] = useState(() => sampleCardlessPayinForm());
  const { tokens, error: tokensError } = useVaultedTokens(profile.id);
  const hasKey = profile.credentials.privateKey.set;

  // The card this page just tokenized is the one the tester wants to charge: select it once vaulted.
  const awaited = result?.payin?.requestId ?? null;
  useEffect(() => {
    const vaulted = awaited === null ? undefined : tokens?.find((t) => t.requestId === awaited && t.state === 'active');
    if (vaulted) setSelected(vaulted.id);
  }, [awaited, tokens]);

  const tokenize = async (event: React.FormEvent) => {
    event.preventDefault();
    if (!hasKey || !consent) return;
    setResult(null);
    const request_id = referenceToSend(form.request_id, 'pg');
    setInFlight({ profileId: profile.id, kind: 'tokenization', reference: request_id });
    const sent = await action.run(() => api.invoke('tokens:tokenize', { ...form, request_id, consent, profileId: profile.id }));
    setInFlight(null);
    if (sent) {
      setResult(sent);
      // The card number is not kept once it has been sent inside the JWT.
      setForm((current) => ({ ...current, cardNum: '', request_id: newReference('pg') }));
      setConsent(false);
    }
  };

  const customer = payinFieldSpecs(form.payment_method ?? 'credit_card', { withoutCard: true });
  const update = (path: string, value: string) => setForm((current) => setField(current, path, value));
  return (
    <Stack>
      {!hasKey && <NoSigningKey profile={profile} />}
      <Card withBorder>
        <Stack component="form" onSubmit={(event) => void tokenize(event)}>
          <Title order={4}>1. Tokenize a card</Title>
          <Group align="flex-end" grow preventGrowOverflow={false}>
            <Select
              label="Payment method"
              description="Tokenization is for cards only (spec 2.5)."
              data={TOKEN_PAYIN_METHODS.map((m) => ({ value: m, label: `${METHOD_LABELS[m]} (${m})` }))}
              value={form.payment_method ?? 'credit_card'}
              allowDeselect={false}
              onChange={(value) => value && setForm((current) => ({ ...current, payment_method: value }))}
            />
            <ScenarioSelect kind="payin" vaulting email={form.email ?? ''} onEmailChange={(email) => setForm((current) => ({ ...current, email }))} environment={profile.environment} />
          </Group>
          <FieldInputs fields={CARD_INPUTS} form={form} errors={action.fieldErrors} onChange={update} />
          <Button variant="subtle" size="xs" w="fit-content" onClick={() => setForm((current) => ({ ...current, ...sampleCard() }))}>
            Use the test card
          </Button>
          <Accordion variant="contained">
            <Accordion.Item value="customer">
              <Accordion.Control>Pay-in fields (pre-filled)</Accordion.Control>
              <Accordion.Panel>
                <FieldInputs fields={customer} form={form} errors={action.fieldErrors} onChange={update} />
              </Accordion.Panel>
            </Accordion.Item>
          </Accordion>
          <Checkbox
            label="The customer agreed to store this card (consent)"
            checked={consent}
            onChange={(event) => setConsent(event.currentTarget.checked)}
            error={action.fieldErrors.consent}
          />
          <Group>
            <Button type="submit" loading={action.busy} disabled={!hasKey || !consent}>
              Tokenize card
            </Button>
            <Text size="sm" c="dimmed">
              POST /payment/create/tokenization; the vaulted token arrives with v2_tokenization_notification.
            </Text>
          </Group>
          <SendProgress inFlight={inFlight} error={action.error} />
        </Stack>
      </Card>
      <SentResult result={result} subject="payin" waitingFor="v2_tokenization_notification" />
      <Card withBorder>
        <Stack>
          <Title order={4}>2. Vaulted tokens</Title>
          <VaultedTokens tokens={tokens} error={tokensError} selected={selected} onSelect={setSelected} />
        </Stack>
      </Card>
      <Card withBorder>
        <Stack>
          <Title order={4}>3. Pay with token</Title>
          {hasKey ? <TokenCharge profile={profile} token={tokens?.find((t) => t.id === selected) ?? null} initial={chargeDefaults} /> : <NoSigningKey profile={profile} />}
        </Stack>
      </Card>
    </Stack>
  );
}
