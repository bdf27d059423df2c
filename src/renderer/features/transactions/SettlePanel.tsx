import { Alert, Button, Card, Code, Group, NumberInput, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { ActionError } from '../../components/ActionError';
import { Dialog } from '../../components/Dialog';
import { DateTime } from '../../components/DateTime';
import { useState } from 'react';
import type { AttemptResumeForm, AttemptReviewView, ReenteredField, SubmitResult } from '../../../shared/contract';
import { CARD_LABELS } from '../../components/card-labels';
import { useAction } from '../../components/use-action';
import { useApi } from '../../stores/context';
import { PayoutReview } from '../payouts/PayoutReview';
import { ReferenceReadNote } from './ReferenceReadNote';
import type { LoadedTransaction } from './use-transaction';

/** The fields a resume after a restart may ask for again (never stored), labelled by main's names. */
const NEEDED_LABELS: Readonly<Record<ReenteredField, string>> = { ...CARD_LABELS, tokenId: 'Vaulted token id' };
const labelOf = (field: string): string => (NEEDED_LABELS as Readonly<Record<string, string | undefined>>)[field] ?? field;

const STALE_PREPARED_MS = 5 * 60_000;

type Reentered = Partial<Record<string, string>>;

/** What a person sends again with a resume: only the fields main asked for. */
function reentry(needs: readonly string[], values: Reentered): Omit<AttemptResumeForm, 'key'> {
  const form: Record<string, string | number> = {};
  for (const field of needs) {
    const value = values[field]?.trim();
    if (value) form[field] = field === 'tokenId' ? Number(value) : value;
  }
  return form as Omit<AttemptResumeForm, 'key'>;
}

/**
 * A create call whose outcome is unknown, settled from its page, always under its own
 * Idempotency-Key: a pay-in by a status read by request_id (the spec's reference) or a resume; a
 * payout (read only by the payout_id its lost answer held) by a resume, which the gateway answers
 * with its first answer — through main's review, required for a live payout. After a restart a
 * card attempt asks for its card data again (never stored).
 */
export function SettlePanel({ data, onSettled }: { data: LoadedTransaction; onSettled: () => void }) {
  const api = useApi();
  const action = useAction();
  const attempt = data.view.attempt;
  const [result, setResult] = useState<SubmitResult | null>(null);
  const [needs, setNeeds] = useState<string[]>([]);
  const [values, setValues] = useState<Reentered>({});
  const [review, setReview] = useState<AttemptReviewView | null>(null);
  const reviewAction = useAction();
  // A "prepared" attempt is sent the moment it is recorded; one still prepared minutes later was interrupted.
  const stalePrepared = attempt?.state === 'prepared' && Date.now() - Date.parse(data.view.createdAt) > STALE_PREPARED_MS;
  if (!attempt || (attempt.state !== 'unknown' && !stalePrepared)) return null;
  const key = attempt.idempotencyKey;
  const isPayout = data.subject === 'payout';

  const finished = (outcome: SubmitResult) => {
    setResult(outcome);
    setNeeds(outcome.outcome === 'needs_body' ? outcome.needs : []);
    onSettled();
  };

  const readStatus = async () => {
    if (data.subject !== 'payin') return;
    const read = await action.run(() => api.invoke('payins:read-status', { profileId: data.view.profileId, requestId: data.view.requestId }));
    if (read) onSettled();
  };

  const resume = async () => {
    setResult(null);
    if (isPayout) {
      // Every payout resume shows main's review of the stored request; a live one needs it.
      const reviewed = await action.run(() => api.invoke('attempts:review', { key }));
      if (reviewed) setReview(reviewed);
      return;
    }
    const outcome = await action.run(() => api.invoke('attempts:resume', { key, ...reentry(needs, values) }));
    if (outcome) finished(outcome);
  };

  const resumeReviewed = async (reviewed: AttemptReviewView, confirmed: boolean) => {
    const proof = { reviewId: reviewed.reviewId, confirmed: reviewed.required ? confirmed : true };
    const outcome = await reviewAction.run(() => api.invoke('attempts:resume', { key, ...reentry(needs, values), ...proof }));
    if (outcome) {
      setReview(null);
      finished(outcome);
    }
  };

  return (
    <Card withBorder padding="md" data-testid="settle-panel">
      <Stack gap="sm">
        <Title order={4}>Outcome unknown — settle it under the same key</Title>
        <Text size="sm">
          {isPayout
            ? 'The gateway may have created this payout, but its answer — with the payout_id the spec reads a payout by — never arrived. Do not send a new payout: resume this one under its own Idempotency-Key. The gateway answers with its first answer if it had one, and creates nothing twice.'
            : 'The gateway may have received this pay-in. Do not create a new one: read its status by request_id, or resume it under its own Idempotency-Key (a status read first; the same request goes out again only if the gateway does not know it).'}
        </Text>
        <Text size="sm">
          Idempotency-Key <Code data-testid="settle-key">{key}</Code>
        </Text>
        <ReferenceReadNote data={data} canResume />
        {attempt.settleNote && (
          <Text size="sm" c="dimmed" data-testid="settle-note">
            Last automatic try: {attempt.settleNote}
          </Text>
        )}
        {needs.length > 0 && (
          <Stack gap="xs" data-testid="settle-needs">
            <Text size="sm">The card data was never stored: enter it again to resend the same request under the same key.</Text>
            <Group align="flex-end">
              {needs.map((field) =>
                field === 'cardCvv' ? (
                  <PasswordInput key={field} label={labelOf(field)} value={values[field] ?? ''} onChange={(e) => setValues((v) => ({ ...v, [field]: e.currentTarget.value }))} error={action.fieldErrors[field] ?? reviewAction.fieldErrors[field]} w={120} />
                ) : field === 'tokenId' ? (
                  <NumberInput key={field} label={labelOf(field)} value={values[field] ?? ''} onChange={(v) => setValues((current) => ({ ...current, [field]: String(v) }))} error={action.fieldErrors[field]} w={160} />
                ) : (
                  <TextInput key={field} label={labelOf(field)} value={values[field] ?? ''} onChange={(e) => setValues((v) => ({ ...v, [field]: e.currentTarget.value }))} error={action.fieldErrors[field] ?? reviewAction.fieldErrors[field]} w={220} />
                ),
              )}
            </Group>
          </Stack>
        )}
        <Group gap="xs">
          {data.subject === 'payin' && (
            <Button variant="light" onClick={() => void readStatus()} loading={action.busy}>
              Read status by request_id
            </Button>
          )}
          <Button onClick={() => void resume()} loading={action.busy} data-testid="settle-resume">
            {needs.length > 0 ? 'Resume with these details' : 'Resume under the same key'}
          </Button>
        </Group>
        <ActionError error={action.error} />
        {result && (
          <Alert color={result.outcome === 'succeeded' ? 'teal' : result.outcome === 'rejected' ? 'red' : 'yellow'} data-testid="settle-result" data-outcome={result.outcome}>
            {result.message}
          </Alert>
        )}
      </Stack>
      <Dialog opened={review !== null} onClose={() => setReview(null)} title="Resume this payout" size="xl">
        {review && (
          <PayoutReview
            review={review}
            title="Review the payout before it is resent under its key"
            sendLabel={review.required ? 'Resume LIVE payout' : 'Resume payout'}
            backLabel="Cancel"
            sending={reviewAction.busy}
            error={reviewAction.error}
            onBack={() => setReview(null)}
            onSend={(confirmed) => void resumeReviewed(review, confirmed)}
          >
            <Text size="sm" c="dimmed" data-testid="review-attempt">
              Recorded <DateTime iso={review.attempt.createdAt} /> · {review.attempt.sendCount} {review.attempt.sendCount === 1 ? 'send' : 'sends'} so far (each with its retries), all under Idempotency-Key {review.attempt.idempotencyKey}
              {review.attempt.error ? ` · ${review.attempt.error}` : ''}. The same bytes go out again; the gateway pays at most once.
            </Text>
          </PayoutReview>
        )}
      </Dialog>
    </Card>
  );
}
