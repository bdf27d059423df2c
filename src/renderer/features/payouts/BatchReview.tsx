import { Card, Stack, Text, Title } from '@mantine/core';
import { Dialog } from '../../components/Dialog';
import { useState } from 'react';
import type { BatchReviewView, BatchView } from '../../../shared/contract';
import { NotificationReachAlert } from '../../components/NotificationReachAlert';
import { useAction } from '../../components/use-action';
import { useApi } from '../../stores/context';
import { ApprovalStep } from '../approvals/ApprovalStep';
import { EnvironmentBanner } from './EnvironmentBanner';
import { ReviewActions } from './ReviewActions';
import { formatMoney } from '../transactions/format';
import { countOf } from '../../components/count';

interface BatchReviewProps {
  review: BatchReviewView;
  sending: boolean;
  error?: string | null;
  onBack: () => void;
  backLabel?: string;
  /** `typedAmount`: the total typed again, where the approval policy asks for it. With an approval needed the button submits it for approval. */
  onSend: (confirmed: boolean, typedAmount?: string) => void;
}

/**
 * Main's review of a batch's start or resume: how many payouts, the exact total per currency, the
 * environment, whether notifications can arrive. A live batch needs an explicit confirmation, and
 * main refuses the start or resume without this review's id.
 */
export function BatchReview({ review, sending, error, onBack, backLabel = 'Back', onSend }: BatchReviewProps) {
  const [confirmed, setConfirmed] = useState(false);
  const [typedAmount, setTypedAmount] = useState('');
  const { batch, sends, approval } = review;
  const live = review.profile.environment === 'live';
  const needsApproval = approval.step === 'approval';
  const needsTyping = approval.step === 'typed_amount';
  const count = review.action === 'start' ? batch.total : sends.pending + sends.open;
  const label = needsApproval ? 'Submit for approval' : review.action === 'start' ? `${live ? 'Start LIVE' : 'Start'} batch of ${batch.total}` : live ? 'Resume LIVE batch' : 'Resume batch';
  return (
    <Card withBorder data-testid="batch-review" data-required={review.required}>
      <Stack gap="sm">
        <Title order={4}>{review.action === 'start' ? `Review batch ${batch.id} · ${batch.fileName}` : `Review the resume of batch ${batch.id} · ${batch.fileName}`}</Title>
        <EnvironmentBanner environment={review.profile.environment} profileName={review.profile.name} />
        <Text size="sm" data-testid="batch-review-count">
          {review.action === 'start'
            ? `${countOf(batch.total, 'payout', 'payouts')} will be sent.${batch.leftOut > 0 ? ` ${countOf(batch.leftOut, 'row', 'rows')} of the file ${batch.leftOut === 1 ? 'is' : 'are'} left out.` : ''}`
            : `${sends.pending} not sent yet will be sent; ${sends.open} whose outcome is open will be settled under their own keys (never paid twice).`}
        </Text>
        <Text size="sm" ff="monospace" data-testid="batch-review-totals">
          Total {batch.totals.map((t) => `${formatMoney(t.amount, t.currency)} (${t.count})`).join(' · ')}
        </Text>
        <NotificationReachAlert reach={review.notifications} profileId={review.profile.id} />
        <ApprovalStep approval={approval} kind="batch" typed={typedAmount} onTyped={setTypedAmount} />
        <ReviewActions
          confirmation={
            review.required
              ? {
                  label: review.action === 'start' ? `I have checked the file: send these ${count} LIVE payouts (real money).` : `I have checked what remains: resume these ${count} LIVE payouts (real money).`,
                  checked: confirmed,
                  onChange: setConfirmed,
                  testId: 'batch-review-confirm',
                }
              : null
          }
          error={error}
          backLabel={backLabel}
          onBack={onBack}
          expiresAt={review.expiresAt}
          sendLabel={label}
          sendColor={live && !needsApproval ? 'red' : undefined}
          canSend={!(review.required && !confirmed) && !(needsTyping && typedAmount.trim() === '')}
          sending={sending}
          onSend={() => onSend(confirmed, needsTyping ? typedAmount.trim() : undefined)}
        />
      </Stack>
    </Card>
  );
}

/**
 * A batch's resume: on a live batch, main's review first (in a dialog), then the resume with its
 * proof; elsewhere at once.
 */
export function useBatchResume(batch: BatchView | undefined, onResumed: (view: BatchView) => void) {
  const api = useApi();
  const action = useAction();
  const [review, setReview] = useState<BatchReviewView | null>(null);
  const resume = async (message: string) => {
    if (!batch) return;
    if (batch.environment !== 'live') {
      const view = await action.run(() => api.invoke('batches:resume', { id: batch.id }), message);
      if (view) onResumed(view);
      return;
    }
    const reviewed = await action.run(() => api.invoke('batches:review', { id: batch.id }));
    if (reviewed) setReview(reviewed);
  };
  const confirm = async (confirmed: boolean) => {
    if (!review) return;
    const view = await action.run(() => api.invoke('batches:resume', { id: review.batch.id, reviewId: review.reviewId, confirmed }), 'Batch resumed');
    if (view) {
      setReview(null);
      onResumed(view);
    }
  };
  const dialog = (
    <Dialog opened={review !== null} onClose={() => setReview(null)} title="Resume a live batch" size="lg">
      {review && <BatchReview review={review} sending={action.busy} error={action.error} onBack={() => setReview(null)} onSend={(confirmed) => void confirm(confirmed)} />}
    </Dialog>
  );
  return { resume, busy: action.busy, error: action.error, dialog };
}
