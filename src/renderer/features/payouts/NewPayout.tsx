import { Alert, Button, Card, Group, SegmentedControl, Stack, Text } from '@mantine/core';
import { useMemo, useState } from 'react';
import type { ProfileView, SubmitResult } from '../../../shared/contract';
import { METHOD_LABELS, PAYOUT_METHODS, type PayoutMethod } from '../../../shared/spec/methods';
import { ContractError } from '../../api/client';
import { useApi } from '../../stores/context';
import { payoutFields } from './form-fields';
import { PayoutFormFields } from './PayoutFormFields';
import { PayoutResult } from './PayoutResult';
import { PayoutReview } from './PayoutReview';
import { payoutProblems, toPayoutForm, type FormValues } from './validate';
import { errorMessage } from '../../../shared/error-message';

type Step = { name: 'form' } | { name: 'review' } | { name: 'result'; result: SubmitResult };

/**
 * A manual payout in three steps: the method's form (each problem shown at its field as the user
 * types), a review that cannot be skipped (the only place with a send button), and the result,
 * whose status then follows the payout live.
 */
export function NewPayout({ profile }: { profile: ProfileView }) {
  const api = useApi();
  const [method, setMethod] = useState<PayoutMethod>('open_banking');
  const [values, setValues] = useState<FormValues>({});
  const [touched, setTouched] = useState<Set<string>>(new Set());
  const [showAll, setShowAll] = useState(false);
  /** What main said about the last attempt to send, by field; a field's entry goes once it is edited. */
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [sendError, setSendError] = useState<string | null>(null);
  const [step, setStep] = useState<Step>({ name: 'form' });
  const [sending, setSending] = useState(false);

  const form = useMemo(() => toPayoutForm(method, values), [method, values]);
  const problems = useMemo(() => payoutProblems(form), [form]);
  const shown: Record<string, string> = { ...serverErrors };
  for (const [path, problem] of Object.entries(problems)) if (showAll || touched.has(path)) shown[path] = problem;

  const change = (path: string, value: string) => {
    setValues((current) => ({ ...current, [path]: value }));
    setServerErrors(({ [path]: _gone, ...rest }) => rest);
  };

  const review = () => {
    setSendError(null);
    if (Object.keys(problems).length > 0) {
      setShowAll(true);
      // Take the keyboard to the first field that needs fixing.
      const first = payoutFields(method).find((field) => problems[field.path] !== undefined);
      if (first) document.getElementById(`payout-${first.path}`)?.focus();
      return;
    }
    setStep({ name: 'review' });
  };

  const send = async () => {
    setSending(true);
    setSendError(null);
    try {
      const result = await api.invoke('payouts:create', { ...form, profileId: profile.id });
      setStep({ name: 'result', result });
    } catch (error) {
      // Back to the form, each problem at its field (a limit names itself at the amount).
      setSendError(errorMessage(error));
      setServerErrors(error instanceof ContractError ? error.fields : {});
      setStep({ name: 'form' });
    } finally {
      setSending(false);
    }
  };

  const startOver = () => {
    setValues({});
    setTouched(new Set());
    setShowAll(false);
    setServerErrors({});
    setSendError(null);
    setStep({ name: 'form' });
  };

  if (step.name === 'review') return <PayoutReview profile={profile} form={form} sending={sending} onBack={() => setStep({ name: 'form' })} onSend={() => void send()} />;
  if (step.name === 'result') return <PayoutResult result={step.result} onAnother={startOver} />;

  const problemCount = Object.keys(problems).length;
  return (
    <Card withBorder>
      <Stack gap="md">
        <Stack gap={4}>
          <Text fw={500} id="payout-method-label">
            Payout method
          </Text>
          <SegmentedControl
            aria-labelledby="payout-method-label"
            data={PAYOUT_METHODS.map((m) => ({ value: m, label: METHOD_LABELS[m] }))}
            value={method}
            onChange={(value) => setMethod(value as PayoutMethod)}
          />
        </Stack>
        {sendError && (
          <Alert color="red" title="The payout was not sent" role="alert" data-testid="payout-send-error">
            {sendError}
          </Alert>
        )}
        <form
          onSubmit={(event) => {
            event.preventDefault();
            review();
          }}
          noValidate
        >
          <Stack gap="md">
            <PayoutFormFields method={method} values={values} errors={shown} onChange={change} onBlur={(path) => setTouched((current) => new Set(current).add(path))} />
            <Group justify="space-between">
              <Text size="sm" c={showAll && problemCount > 0 ? 'red' : 'dimmed'} aria-live="polite">
                {problemCount === 0 ? 'Ready for review.' : `${problemCount} ${problemCount === 1 ? 'field needs' : 'fields need'} attention before the review.`}
              </Text>
              <Button type="submit">Review payout</Button>
            </Group>
          </Stack>
        </form>
      </Stack>
    </Card>
  );
}
