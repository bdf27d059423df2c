import { Alert, Anchor, Badge, Button, Card, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import type { SubmitResult } from '../../../shared/contract';
import { describeReason } from '../../../shared/spec/codes';
import { CopyValue } from '../../components/CopyValue';
import { routeHash } from '../../shell/use-route';
import { StatusBadge } from '../transactions/StatusBadge';
import { RawBlock } from './RawBlock';

const outcomeColor: Record<SubmitResult['outcome'], string> = {
  succeeded: 'teal',
  rejected: 'red',
  unknown: 'orange',
  busy: 'gray',
  needs_body: 'yellow',
  prepared: 'gray',
};

const REQUEST_NOTE = 'As main recorded it before sending: card number masked to first 6 / last 4, CVV and merchant_jwt removed.';

/** The redirect page opens outside the app: the system browser in Electron, a new tab in web mode. */
export function openRedirect(url: string): void {
  window.open(url, '_blank', 'noopener,noreferrer');
}

/** What one create call did: outcome, the raw request and answer, and what to do next. */
export function SubmitResultView({ result }: { result: SubmitResult }) {
  const { attempt, payin, payout, gatewayError, nextStep } = result;
  const reason = gatewayError?.reasonCode ? describeReason(gatewayError.reasonCode) : null;
  return (
    <Card withBorder data-testid="send-result" data-outcome={result.outcome}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start">
          <Group gap="xs">
            <Title order={4}>Answer</Title>
            <Badge color={outcomeColor[result.outcome]} data-testid="send-outcome">
              {result.outcome}
            </Badge>
            {attempt.httpStatus !== null && <Badge variant="outline">HTTP {attempt.httpStatus}</Badge>}
            <Text size="sm" c="dimmed">
              {result.tries} {result.tries === 1 ? 'try' : 'tries'}
            </Text>
          </Group>
          <Group gap={4}>
            <Text size="xs" c="dimmed">
              Idempotency-Key
            </Text>
            <CopyValue value={attempt.idempotencyKey} label="Idempotency-Key" />
          </Group>
        </Group>
        <Text size="sm">{result.message}</Text>
        {gatewayError && (
          <Alert color="red" title={`Refused: ${gatewayError.statusCode ?? '—'} ${gatewayError.reasonCode ?? ''}`} data-testid="gateway-error">
            <Stack gap={4}>
              {reason && <Text size="sm">{reason.meaning}. {reason.retry.text}</Text>}
              {gatewayError.errorCode && <Text size="sm">error_code {gatewayError.errorCode} (quote it to support)</Text>}
              {gatewayError.message && <Text size="sm">{gatewayError.message}</Text>}
              {Object.keys(gatewayError.details).length > 0 && (
                <Table withRowBorders={false} verticalSpacing={2}>
                  <Table.Tbody>
                    {Object.entries(gatewayError.details).map(([field, problem]) => (
                      <Table.Tr key={field}>
                        <Table.Td ff="monospace">{field}</Table.Td>
                        <Table.Td>{problem}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              )}
            </Stack>
          </Alert>
        )}
        {nextStep.action !== 'none' && (
          <Alert color={nextStep.action === 'resolve_unknown' ? 'orange' : 'blue'} title="Next step" data-testid="next-step">
            {nextStep.text}
          </Alert>
        )}
        {payin && (
          <Group gap="sm">
            <StatusBadge subject="payin" code={payin.statusCode} attemptState={payin.attempt?.state ?? null} size="md" />
            {payin.payinId && <CopyValue value={payin.payinId} label="payin_id" />}
            {payin.redirectUrl && (
              <Button size="xs" onClick={() => openRedirect(payin.redirectUrl as string)}>
                Open redirect page
              </Button>
            )}
            <Anchor href={routeHash('payins', { id: payin.id })} size="sm">
              Open pay-in
            </Anchor>
          </Group>
        )}
        {payout && (
          <Group gap="sm">
            <StatusBadge subject="payout" code={payout.statusCode} attemptState={payout.attempt?.state ?? null} size="md" />
            {payout.payoutId && <CopyValue value={payout.payoutId} label="payout_id" />}
            <Anchor href={routeHash('payouts', { id: payout.id })} size="sm">
              Open payout
            </Anchor>
          </Group>
        )}
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <RawBlock title="Raw request" text={attempt.request} note={REQUEST_NOTE} testId="raw-request" />
          <RawBlock title="Raw response" text={attempt.response} note={attempt.error ?? 'The answer body exactly as the gateway sent it.'} testId="raw-response" />
        </SimpleGrid>
      </Stack>
    </Card>
  );
}
