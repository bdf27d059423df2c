import { Alert, Anchor, Button, Group, Loader, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { StatusReadView } from '../../../shared/contract';
import { AttemptProgressPanel } from '../../components/AttemptProgressPanel';
import { downloadText } from '../../components/download';
import type { ProgressMatch } from '../../components/use-attempt-progress';
import { requestLandingFocus, useLandingFocus } from '../../components/focus-landing';
import { useAction } from '../../components/use-action';
import { useApi } from '../../stores/context';
import { listHash } from './back-link';
import { lastErrorCode } from './facts';
import { PaymentPanel } from './PaymentPanel';
import { ReferenceReadNote, referenceReadRefusal } from './ReferenceReadNote';
import { ReferencesPanel } from './ReferencesPanel';
import { SettlePanel } from './SettlePanel';
import { StatusPanel } from './StatusPanel';
import { subjectNoun } from './status';
import { TimelineList } from './TimelineList';
import { useTransaction, type LoadedTransaction } from './use-transaction';
import { VerificationBadge } from './VerificationBadge';
import { VerificationPanel } from './VerificationPanel';
import { useAccess } from '../../stores/access';

export interface TransactionDetailProps {
  subject: 'payin' | 'payout';
  /** The ledger row id (from the route `#/payins/<id>` or `#/payouts/<id>`). */
  id: number;
}

/**
 * One pay-in or payout as support sees it: status in the catalogue's words and what to tell the
 * customer, amount and card, every reference with a copy button, notified vs verified, a status
 * re-read, the evidence pack, and the whole timeline with raw JSON. Updates live on pushes.
 */
export function TransactionDetail({ subject, id }: TransactionDetailProps) {
  const { can } = useAccess();
  const { state, reload } = useTransaction(subject, id);
  // Opened from a search result or a list's row: the focus lands on this heading once it is shown.
  const heading = useLandingFocus<HTMLHeadingElement>(state.status === 'ready');
  const noun = subjectNoun(subject);
  const back = (
    <Anchor href={listHash(subject)} size="sm" onClick={requestLandingFocus}>
      ← All {subject === 'payin' ? 'pay-ins' : 'payouts'}
    </Anchor>
  );

  if (state.status === 'loading') {
    return (
      <Stack>
        {back}
        <Group>
          <Loader size="sm" aria-label={`Loading the ${noun}`} />
          <Text c="dimmed">Loading the {noun}…</Text>
        </Group>
      </Stack>
    );
  }
  if (state.status !== 'ready') {
    return (
      <Stack>
        {back}
        <Alert color={state.status === 'not_found' ? 'yellow' : 'red'} title={state.status === 'not_found' ? `No such ${noun}` : `The ${noun} could not be loaded`}>
          <Stack gap="xs" align="flex-start">
            <Text size="sm">{state.message}</Text>
            {state.status === 'error' && (
              <Button size="xs" variant="light" onClick={reload}>
                Try again
              </Button>
            )}
          </Stack>
        </Alert>
      </Stack>
    );
  }

  const { data } = state;
  const error = lastErrorCode(data.entries);
  // Settling a payout resends it: for those whose role sends payouts; a pay-in is settled by a status read, open to every reader.
  const canSettle = can(subject === 'payout' ? 'attempts:resume' : 'payins:read-status');
  return (
    <Stack data-testid="transaction-detail" data-subject={subject}>
      {back}
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Title order={2} ref={heading} tabIndex={-1}>
            {subject === 'payin' ? 'Pay-in' : 'Payout'} <Text span ff="monospace" inherit>{data.subject === 'payin' ? data.view.requestId : data.view.merchantReference}</Text>
          </Title>
          <Group gap="xs">
            <VerificationBadge transaction={data.view} />
            {data.view.verification === 'mismatch' && (
              <Text size="sm" c="red" fw={600}>
                Mismatch: see below
              </Text>
            )}
          </Group>
        </Stack>
        <DetailActions data={data} onRead={reload} />
      </Group>
      <AttemptProgressPanel match={sendingNow(data)} />
      <PolledStatusNote data={data} />
      {canSettle ? <SettlePanel data={data} onSettled={reload} /> : <ReferenceReadNote data={data} canResume={false} />}
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
        <StatusPanel subject={subject} view={data.view} />
        <PaymentPanel data={data} />
        <ReferencesPanel data={data} errorCode={error?.code ?? null} />
        <VerificationPanel subject={subject} view={data.view} contradictions={data.contradictions} />
      </SimpleGrid>
      <Title order={3}>Timeline</Title>
      <TimelineList subject={subject} entries={data.entries} />
    </Stack>
  );
}

/** While its create call is being sent (opened or reloaded mid-send), the send's progress is followed here too. */
function sendingNow(data: LoadedTransaction): ProgressMatch | null {
  if (data.view.attempt?.state !== 'sending') return null;
  const reference = data.subject === 'payin' ? data.view.requestId : data.view.merchantReference;
  return { profileId: data.view.profileId, kind: data.subject === 'payin' ? data.view.kind : 'payout', reference };
}

/**
 * A transaction whose notifications cannot arrive (sent by a sandbox or live profile with a
 * loopback notification link): main reads its status instead, and this says so.
 */
function PolledStatusNote({ data }: { data: LoadedTransaction }) {
  const link = data.view.notificationsUnreachable;
  if (link === null) return null;
  const reads = data.entries.filter((e) => e.kind === 'status_read').length;
  const noun = subjectNoun(data.subject);
  // Its gateway cannot read it without its payout_id (said below): read once it has one.
  const waitsForItsId = referenceReadRefusal(data) !== null;
  return (
    <Alert color="orange" title="Notifications cannot arrive for this transaction" data-testid="polled-status">
      <Text size="sm">
        This {noun} was sent with the notification link <Text span ff="monospace">{link}</Text>, a loopback address the gateway cannot reach, so no notification will
        come.{' '}
        {data.view.final
          ? `Paydesk read its status from the gateway instead (${reads} status ${reads === 1 ? 'read' : 'reads'}): it is final.`
          : waitsForItsId
            ? `Paydesk reads its status from the gateway instead once it has its payout_id: ${reads} status ${reads === 1 ? 'read' : 'reads'} so far.`
            : `Paydesk reads its status from the gateway instead — after 5 s, then with pauses doubling up to 10 minutes, for a day, within the rate limit — until it is final: ${reads} status ${reads === 1 ? 'read' : 'reads'} so far.`}
      </Text>
    </Alert>
  );
}

function readMessage(read: StatusReadView): { color: string; message: string } {
  switch (read.result) {
    case 'ok':
      return { color: 'teal', message: `The gateway says: status ${read.statusCode ?? '(none)'}.` };
    case 'rate_limited':
      return { color: 'yellow', message: `The gateway asked to slow down; try again in ${read.retryAfterSeconds ?? 1} s.` };
    case 'not_found':
      return { color: 'yellow', message: 'The gateway does not know this transaction.' };
    default:
      return { color: 'red', message: `The status read failed (${read.result}${read.error ? `: ${read.error}` : ''}).` };
  }
}

function DetailActions({ data, onRead }: { data: LoadedTransaction; onRead: () => void }) {
  const api = useApi();
  const reading = useAction();
  const exporting = useAction();
  const { can } = useAccess();
  // A payout whose create answer never arrived has no payout_id: it is read by its merchantReference.
  const reRead = async () => {
    const { profileId } = data.view;
    const read =
      data.subject === 'payin'
        ? await reading.run(async () => (await api.invoke('payins:read-status', data.view.payinId ? { profileId, payinId: data.view.payinId } : { profileId, requestId: data.view.requestId })).read)
        : await reading.run(async () => (await api.invoke('payouts:read-status', data.view.payoutId ? { profileId, payoutId: data.view.payoutId } : { profileId, merchantReference: data.view.merchantReference })).read);
    if (read) notifications.show(readMessage(read));
    onRead();
  };

  const exportEvidence = async () => {
    const pack = await exporting.run(() => api.invoke('evidence:export', { subject: data.subject, id: data.view.id }), 'Evidence pack saved.');
    if (pack) downloadText(pack.filename, pack.json, 'application/json');
  };

  // A payout without its payout_id whose gateway cannot read by merchantReference: nothing to re-read it by (the page says so).
  const readable = referenceReadRefusal(data) === null;
  return (
    <Stack gap={4} align="flex-end">
      <Group gap="xs">
        {readable && (
          <Button onClick={() => void reRead()} loading={reading.busy}>
            Re-read status
          </Button>
        )}
        {can('evidence:export') && (
          <Button variant="default" onClick={() => void exportEvidence()} loading={exporting.busy}>
            Export evidence pack
          </Button>
        )}
      </Group>
      {reading.error && (
        <Text size="sm" c="red" role="alert">
          {reading.error}
        </Text>
      )}
      {exporting.error && (
        <Text size="sm" c="red" role="alert">
          {exporting.error}
        </Text>
      )}
    </Stack>
  );
}
