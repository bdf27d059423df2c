import type { SubmitResult, TransactionSubject } from '../../../shared/contract';
import type { NotificationEvent } from '../../../shared/spec/events';
import { ActionError } from '../../components/ActionError';
import { AttemptProgressPanel } from '../../components/AttemptProgressPanel';
import type { ProgressMatch } from '../../components/use-attempt-progress';
import { LiveFollow } from './LiveFollow';
import { SubmitResultView } from './SubmitResultView';

/** Under a playground's send button: the attempt on its way, or why it was not sent. */
export function SendProgress({ inFlight, error }: { inFlight: ProgressMatch | null; error: string | null }) {
  return (
    <>
      <AttemptProgressPanel match={inFlight} />
      <ActionError error={error} title="Not sent" />
    </>
  );
}

/** What a playground's send got back: the exchange, then the transaction followed until its notification arrives. */
export function SentResult({ result, subject, waitingFor }: { result: SubmitResult | null; subject: TransactionSubject; waitingFor: NotificationEvent }) {
  const sent = result?.[subject];
  return (
    <>
      {result && <SubmitResultView result={result} />}
      {sent && <LiveFollow key={sent.id} subject={subject} id={sent.id} waitingFor={waitingFor} />}
    </>
  );
}
