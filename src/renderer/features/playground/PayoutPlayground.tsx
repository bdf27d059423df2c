import { Alert, Button, Group, Select, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import type { ApprovalView, PayoutCreateForm, PayoutReviewView, ProfileView, SubmitResult } from '../../../shared/contract';
import { METHOD_LABELS, PAYOUT_METHODS, type PayoutMethod } from '../../../shared/spec/methods';
import { ContractError } from '../../api/client';
import { AttemptProgressPanel } from '../../components/AttemptProgressPanel';
import { useAction } from '../../components/use-action';
import { referenceToSend, type ProgressMatch } from '../../components/use-attempt-progress';
import { useApi } from '../../stores/context';
import { PayoutReview } from '../payouts/PayoutReview';
import { sendReviewedPayout } from '../payouts/send-reviewed';
import { SubmittedForApproval } from '../approvals/SubmittedForApproval';
import { payoutFieldSpecs } from './fields';
import { RequestEditor } from './RequestEditor';
import { newReference, samplePayoutForm } from '../../../shared/spec/samples';
import { ScenarioSelect } from './ScenarioSelect';
import { SendProgress, SentResult } from './SendOutcome';

/**
 * Payout playground: four methods, P/C scenarios, the raw exchange and the notification. On a live
 * profile nothing goes out before main's review and an explicit confirmation (main refuses a live
 * payout without them).
 */
export function PayoutPlayground({ profile }: { profile: ProfileView }) {
  const api = useApi();
  const action = useAction();
  const reviewAction = useAction();
  const [form, setForm] = useState<PayoutCreateForm>(() => samplePayoutForm('fps'));
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [result, setResult] = useState<SubmitResult | null>(null);
  const [review, setReview] = useState<PayoutReviewView | null>(null);
  const [submitted, setSubmitted] = useState<ApprovalView | null>(null);
  const live = profile.environment === 'live';
  const [inFlight, setInFlight] = useState<ProgressMatch | null>(null);
  const method = (form.method ?? 'fps') as PayoutMethod;
  const email = form.customer?.email ?? '';
  const setEmail = (next: string) => setForm((current) => ({ ...current, customer: { ...current.customer, email: next } }));
  const keepEmail = (next: PayoutCreateForm): PayoutCreateForm => ({ ...next, customer: { ...next.customer, email } });

  const sent = (outcome: SubmitResult) => {
    setResult(outcome);
    setForm((current) => ({ ...current, merchantReference: newReference('po') }));
  };

  const send = async (event: React.FormEvent) => {
    event.preventDefault();
    if (jsonError !== null || !profile.payoutsEnabled) return;
    setResult(null);
    setSubmitted(null);
    const merchantReference = referenceToSend(form.merchantReference, 'po');
    if (live) {
      const reviewed = await action.run(() => api.invoke('payouts:review', { ...form, merchantReference, profileId: profile.id }));
      if (reviewed) setReview(reviewed);
      return;
    }
    setInFlight({ profileId: profile.id, kind: 'payout', reference: merchantReference });
    const outcome = await action.run(async () => {
      try {
        return await api.invoke('payouts:create', { ...form, merchantReference, profileId: profile.id });
      } catch (error) {
        // The approval policy holds it back (approval on a team server, the typed amount on a desk): its review says how.
        if (!(error instanceof ContractError) || (error.fields.typedAmount === undefined && error.fields.reviewId === undefined)) throw error;
        setReview(await api.invoke('payouts:review', { ...form, merchantReference, profileId: profile.id }));
        return undefined;
      }
    });
    setInFlight(null);
    if (outcome) sent(outcome);
  };

  const sendReviewed = async (reviewed: PayoutReviewView, confirmed: boolean, typedAmount?: string) => {
    setInFlight({ profileId: profile.id, kind: 'payout', reference: reviewed.payout.merchantReference });
    const outcome = await reviewAction.run(() => sendReviewedPayout(api, reviewed, form, confirmed, typedAmount));
    setInFlight(null);
    if (!outcome) return;
    setReview(null);
    if (outcome.kind === 'sent') sent(outcome.result);
    else {
      setSubmitted(outcome.approval);
      setForm((current) => ({ ...current, merchantReference: newReference('po') }));
    }
  };

  if (review) {
    return (
      <Stack>
        <PayoutReview
        review={review}
        limits={review.limits}
        approval={review.approval}
        duplicates={{ payouts: review.duplicates, windowDays: review.duplicateWindowDays }}
        title={live ? 'Review the LIVE payout' : 'Review the payout'}
        sending={reviewAction.busy}
        error={reviewAction.error}
        onBack={() => {
          reviewAction.reset();
          setReview(null);
        }}
          onSend={(confirmed, typedAmount) => void sendReviewed(review, confirmed, typedAmount)}
        />
        <AttemptProgressPanel match={inFlight} />
      </Stack>
    );
  }

  return (
    <Stack>
      {!profile.payoutsEnabled && (
        <Alert color="yellow" title="Payouts are not available on this profile" data-testid="payouts-disabled">
          Spec section 4, rule 3: the payout endpoints are unavailable in the provider sandbox. Use the local emulator profile (or a live one) to try payouts.
        </Alert>
      )}
      {live && (
        <Alert color="red" title="Live profile">
          A payout sent from here moves real money: it goes out only after its review and your confirmation.
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
          <Button type="submit" color={live ? 'red' : undefined} loading={action.busy} disabled={jsonError !== null || !profile.payoutsEnabled}>
            {live ? 'Review LIVE payout' : 'Send payout'}
          </Button>
          <Button variant="default" onClick={() => setForm(keepEmail(samplePayoutForm(method)))}>
            Reset to sample
          </Button>
          <Text size="sm" c="dimmed">
            POST /payouts/create; mode "direct", merchant and notificationUrl from the profile.
          </Text>
        </Group>
      </Stack>
      <SendProgress inFlight={inFlight} error={action.error} />
      {submitted && <SubmittedForApproval approval={submitted} />}
      <SentResult result={result} subject="payout" waitingFor="v2_payout_notification" />
    </Stack>
  );
}
