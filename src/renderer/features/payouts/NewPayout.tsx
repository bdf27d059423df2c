import { Alert, Button, Card, Group, SegmentedControl, Stack, Text } from '@mantine/core';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ApprovalView, PayoutReviewView, ProfileView, SubmitResult } from '../../../shared/contract';
import { METHOD_LABELS, PAYOUT_METHODS, type PayoutMethod } from '../../../shared/spec/methods';
import { ContractError } from '../../api/client';
import { AttemptProgressPanel } from '../../components/AttemptProgressPanel';
import { referenceToSend, type ProgressMatch } from '../../components/use-attempt-progress';
import { useApi } from '../../stores/context';
import { payoutFields } from './form-fields';
import { PayoutFormFields } from './PayoutFormFields';
import { PayoutResult } from './PayoutResult';
import { PayoutReview } from './PayoutReview';
import { sendReviewedPayout } from './send-reviewed';
import { SubmittedForApproval } from '../approvals/SubmittedForApproval';
import { payoutProblems, toPayoutForm, type FormValues } from './validate';
import { errorMessage } from '../../../shared/error-message';

type Step = { name: 'form' } | { name: 'review'; review: PayoutReviewView } | { name: 'result'; result: SubmitResult } | { name: 'submitted'; approval: ApprovalView };

/**
 * A manual payout in three steps: the method's form (each problem shown at its field as the user
 * types), main's review that cannot be skipped (the only place with a send button; on a live
 * profile main refuses the send without it), and the result, whose status then follows the
 * payout live.
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
  /** While main's review is asked for. */
  const [reviewing, setReviewing] = useState(false);
  /** The send under way, followed by its reference (its progress panel). */
  const [sending, setSending] = useState<ProgressMatch | null>(null);
  const [reviewError, setReviewError] = useState<string | null>(null);
  // Back on the form from the review, a refusal or the result: where the keyboard's focus lands
  // (the control that left it is gone with the step it was on).
  const reviewButton = useRef<HTMLButtonElement>(null);
  const [landing, setLanding] = useState<'review' | 'fields' | null>(null);

  const form = useMemo(() => toPayoutForm(method, values), [method, values]);
  const problems = useMemo(() => payoutProblems(form), [form]);
  const shown: Record<string, string> = { ...serverErrors };
  for (const [path, problem] of Object.entries(problems)) if (showAll || touched.has(path)) shown[path] = problem;

  const change = (path: string, value: string) => {
    setValues((current) => ({ ...current, [path]: value }));
    setServerErrors(({ [path]: _gone, ...rest }) => rest);
  };

  /** Main's errors go back to the form, each at its field (a limit names itself at the amount). */
  const backToForm = (error: unknown) => {
    setSendError(errorMessage(error));
    setServerErrors(error instanceof ContractError ? error.fields : {});
    setStep({ name: 'form' });
    setLanding('fields');
  };

  const review = async () => {
    setSendError(null);
    setReviewError(null);
    if (Object.keys(problems).length > 0) {
      setShowAll(true);
      // Take the keyboard to the first field that needs fixing.
      const first = payoutFields(method).find((field) => problems[field.path] !== undefined);
      if (first) document.getElementById(`payout-${first.path}`)?.focus();
      return;
    }
    // Chosen before the review, so the review shows the reference that goes out, and the send's progress can be followed by it.
    const merchantReference = referenceToSend(form.merchantReference, 'po');
    setValues((current) => ({ ...current, merchantReference }));
    setReviewing(true);
    try {
      setStep({ name: 'review', review: await api.invoke('payouts:review', { ...form, merchantReference, profileId: profile.id }) });
    } catch (error) {
      backToForm(error);
    } finally {
      setReviewing(false);
    }
  };

  const send = async (reviewed: PayoutReviewView, confirmed: boolean, typedAmount?: string) => {
    setSending({ profileId: profile.id, kind: 'payout', reference: reviewed.payout.merchantReference });
    setReviewError(null);
    try {
      const sent = await sendReviewedPayout(api, reviewed, form, confirmed, typedAmount);
      setStep(sent.kind === 'sent' ? { name: 'result', result: sent.result } : { name: 'submitted', approval: sent.approval });
    } catch (error) {
      // A review that expired (or was spent), or a typed amount that does not match, is main's
      // word on the review itself: it stays on screen; anything else goes back to the form.
      if (error instanceof ContractError && error.fields.typedAmount) setReviewError(errorMessage(error));
      else if (error instanceof ContractError && error.fields.reviewId) setReviewError(`${errorMessage(error)} Press “Back to edit”, then review it again.`);
      else backToForm(error);
    } finally {
      setSending(null);
    }
  };

  const startOver = () => {
    setValues({});
    setTouched(new Set());
    setShowAll(false);
    setServerErrors({});
    setSendError(null);
    setStep({ name: 'form' });
    setLanding('fields');
  };

  useEffect(() => {
    if (step.name !== 'form' || landing === null) return;
    setLanding(null);
    // The first field main or the rules refused (or, starting over, the first field); else the button that leads to the review.
    const first = payoutFields(method).find((field) => landing === 'fields' && (serverErrors[field.path] !== undefined || Object.keys(serverErrors).length === 0));
    const target = first ? document.getElementById(`payout-${first.path}`) : reviewButton.current;
    (target ?? reviewButton.current)?.focus();
  }, [step.name, landing, method, serverErrors]);

  if (step.name === 'review') {
    return (
      <Stack gap="md">
        <PayoutReview
          review={step.review}
          limits={step.review.limits}
          approval={step.review.approval}
          duplicates={{ payouts: step.review.duplicates, windowDays: step.review.duplicateWindowDays }}
          sending={sending !== null}
          error={reviewError}
          onBack={() => {
            setReviewError(null);
            setStep({ name: 'form' });
            setLanding('review');
          }}
          onSend={(confirmed, typedAmount) => void send(step.review, confirmed, typedAmount)}
        />
        <AttemptProgressPanel match={sending} />
      </Stack>
    );
  }
  if (step.name === 'result') return <PayoutResult result={step.result} onAnother={startOver} />;
  if (step.name === 'submitted') return <SubmittedForApproval approval={step.approval} onAnother={startOver} />;

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
            void review();
          }}
          noValidate
        >
          <Stack gap="md">
            <PayoutFormFields method={method} values={values} errors={shown} onChange={change} onBlur={(path) => setTouched((current) => new Set(current).add(path))} />
            <Group justify="space-between">
              <Text size="sm" c={showAll && problemCount > 0 ? 'red' : 'dimmed'} aria-live="polite">
                {problemCount === 0 ? 'Ready for review.' : `${problemCount} ${problemCount === 1 ? 'field needs' : 'fields need'} attention before the review.`}
              </Text>
              <Button type="submit" loading={reviewing} ref={reviewButton}>
                Review payout
              </Button>
            </Group>
          </Stack>
        </form>
      </Stack>
    </Card>
  );
}
