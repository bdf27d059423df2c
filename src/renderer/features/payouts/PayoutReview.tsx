import { Alert, Anchor, Card, Checkbox, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { Amount } from '../../components/Amount';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { ApprovalNeed, LimitCheckResult, NotificationReachView, PayoutMatch, ReviewedPayout } from '../../../shared/contract';
import { routeHash } from '../../shell/use-route';
import { describePayout } from './csv';
import { methodLabel } from '../../../shared/spec/methods';
import { NotificationReachAlert } from '../../components/NotificationReachAlert';
import { ApprovalStep } from '../approvals/ApprovalStep';
import { EnvironmentBanner } from './EnvironmentBanner';
import { LimitCheckList } from './LimitCheckList';
import { ReviewActions } from './ReviewActions';

/** What main's review of a payout (payouts:review, attempts:review) gives the screen. */
export interface PayoutReviewFacts {
  required: boolean;
  expiresAt: string;
  profile: { id: string; name: string; environment: 'local' | 'sandbox' | 'live' };
  notifications: NotificationReachView;
  payout: ReviewedPayout;
}

interface PayoutReviewProps {
  review: PayoutReviewFacts;
  /** The payout limits, for a new payout (a resume sends no new payout). */
  limits?: LimitCheckResult;
  /** What the approval policy asks of a new payout: another person's approval, or the amount typed again. */
  approval?: ApprovalNeed;
  /** Earlier payouts a new payout may repeat (same account, amount and currency within `duplicateWindowDays`): it is sent only once the person confirms it. */
  duplicates?: { payouts: PayoutMatch[]; windowDays: number };
  title?: string;
  sendLabel?: string;
  backLabel?: string;
  sending: boolean;
  /** Why the last send was refused (an expired review, a limit…), shown above the buttons. */
  error?: string | null;
  onBack: () => void;
  /**
   * `confirmed`: the person ticked the live confirmation (always true where none is asked);
   * `typedAmount`: the amount typed again, where the policy asks for it. With an approval needed,
   * the button submits the payout for approval instead of sending it.
   */
  onSend: (confirmed: boolean, typedAmount?: string) => void;
  /** More facts of what is sent (the attempt being resumed). */
  children?: ReactNode;
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

/** A payout as its review shows it: the exact amount, the beneficiary, the masked destination, the reference and the profile (also what an approver checks). */
export function ReviewedPayoutFacts({ payout, profile }: { payout: ReviewedPayout; profile: { name: string; environment: string } }) {
  return (
    <>
      <Stack gap={2}>
        <Text size="xs" c="dimmed">
          Amount
        </Text>
        <Text fz={28} fw={700} data-testid="review-amount">
          <Amount value={payout.amount} currency={payout.currency} />
        </Text>
        <Text size="xs" c="dimmed">
          Exactly {payout.amount} {payout.currency}, by {methodLabel(payout.method)}
        </Text>
      </Stack>
      <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="sm">
        <Fact label="Beneficiary" value={payout.beneficiary} testId="review-beneficiary" />
        <Fact label="E-mail" value={payout.email} />
        <Fact label="Country" value={payout.country} />
        {payout.destination.map((line) => (
          <Fact key={line.label} label={line.label} value={line.value} testId={`review-${line.label.toLowerCase().replace(/\s+/g, '-')}`} />
        ))}
        <Fact label="Merchant reference" value={payout.merchantReference} testId="review-reference" />
        <Fact label="Profile" value={`${profile.name} (${profile.environment})`} testId="review-profile" />
      </SimpleGrid>
    </>
  );
}

/**
 * The one step with a send button, for every path to a payout (New payout, the playground, the
 * resume of an attempt): what main will send, to whom (masked), through which environment, what
 * the limits say and whether notifications can arrive. A live payout needs an explicit
 * confirmation, and main refuses it without this review's id.
 */
export function PayoutReview({ review, limits, approval, duplicates, title = 'Review the payout', sendLabel, backLabel = 'Back to edit', sending, error, onBack, onSend, children }: PayoutReviewProps) {
  const { payout, profile } = review;
  const [liveConfirmed, setLiveConfirmed] = useState(false);
  const [notRepeat, setNotRepeat] = useState(false);
  const repeats = duplicates && duplicates.payouts.length > 0 ? duplicates : null;
  const [typedAmount, setTypedAmount] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);

  const live = profile.environment === 'live';
  const overLimit = limits !== undefined && !limits.ok;
  const needsApproval = approval?.step === 'approval';
  const needsTyping = approval?.step === 'typed_amount';
  const canSend = !overLimit && (!review.required || liveConfirmed) && (!needsTyping || typedAmount.trim() !== '') && (repeats === null || notRepeat);
  const label = needsApproval ? 'Submit for approval' : (sendLabel ?? (live ? 'Send LIVE payout' : 'Send payout'));

  return (
    <Card withBorder data-testid="payout-review" data-required={review.required}>
      <Stack gap="md">
        <Title order={3} ref={heading} tabIndex={-1}>
          {title}
        </Title>
        <EnvironmentBanner environment={profile.environment} profileName={profile.name} />
        <ReviewedPayoutFacts payout={payout} profile={profile} />
        {children}
        {limits && (
          <Stack gap={4}>
            <Text fw={500} size="sm">
              Limits
            </Text>
            <LimitCheckList result={limits} currency={payout.currency} />
            {overLimit && (
              <Alert color="red" title="Over a payout limit" data-testid="over-limit">
                Main refuses this payout as it stands: lower the amount, or change the limit under “Limits” (the change is audited).
              </Alert>
            )}
          </Stack>
        )}
        <NotificationReachAlert reach={review.notifications} profileId={profile.id} />
        {repeats && (
          <Alert color="orange" title="Possible duplicate" data-testid="review-duplicates">
            <Stack gap="xs">
              <Text size="sm">
                The same account, amount and currency as{' '}
                {repeats.payouts.map((d, i) => (
                  <span key={d.id}>
                    {i > 0 && ', '}
                    payout <Anchor href={routeHash('payouts', { id: d.id })} size="sm">{describePayout(d)}</Anchor>
                  </span>
                ))}{' '}
                in the last {repeats.windowDays} days. Send it only if it is a new payout, not the same one again.
              </Text>
              <Checkbox label="Send anyway: this is a new payout, not a repeat" checked={notRepeat} onChange={(event) => setNotRepeat(event.currentTarget.checked)} data-testid="review-duplicate-confirm" />
            </Stack>
          </Alert>
        )}
        {approval && (
          <ApprovalStep approval={approval} kind="payout" typed={typedAmount} onTyped={setTypedAmount} />
        )}
        <ReviewActions
          confirmation={
            review.required
              ? {
                  label: needsApproval ? 'I have checked the beneficiary and the amount: submit this LIVE payout for approval (real money).' : 'I have checked the beneficiary and the amount: send this LIVE payout (real money).',
                  checked: liveConfirmed,
                  onChange: setLiveConfirmed,
                  testId: 'review-confirm',
                }
              : null
          }
          error={error}
          errorTestId="review-error"
          backLabel={backLabel}
          onBack={onBack}
          expiresAt={review.expiresAt}
          sendLabel={label}
          sendColor={live && !needsApproval ? 'red' : undefined}
          canSend={canSend}
          sending={sending}
          onSend={() => onSend(liveConfirmed, needsTyping ? typedAmount.trim() : undefined)}
        />
      </Stack>
    </Card>
  );
}
