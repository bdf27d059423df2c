import { Text } from '@mantine/core';
import { CopyValue } from '../../components/CopyValue';
import { Fact, FactsCard } from './FactsCard';
import type { LoadedTransaction } from './use-transaction';

interface Reference {
  label: string;
  value: string | null;
}

function referencesOf(data: LoadedTransaction, errorCode: string | null): Reference[] {
  const key: Reference = { label: 'Idempotency-Key', value: data.view.attempt?.idempotencyKey ?? null };
  const error: Reference = { label: 'error_code', value: errorCode };
  if (data.subject === 'payin') {
    return [{ label: 'request_id', value: data.view.requestId }, { label: 'payin_id', value: data.view.payinId }, key, error];
  }
  return [{ label: 'merchantReference', value: data.view.merchantReference }, { label: 'payout_id', value: data.view.payoutId }, key, error];
}

/** Every reference support may be asked for, each with a copy button (tickets quote them verbatim). */
export function ReferencesPanel({ data, errorCode }: { data: LoadedTransaction; errorCode: string | null }) {
  return (
    <FactsCard title="References">
      {referencesOf(data, errorCode).map(({ label, value }) => (
        <Fact key={label} label={label} testId={`ref-${label}`}>
          {value === null ? (
            <Text size="sm" c="dimmed">
              {label === 'error_code' ? 'none (no refused answer)' : 'not known yet'}
            </Text>
          ) : (
            <CopyValue value={value} label={label} />
          )}
        </Fact>
      ))}
    </FactsCard>
  );
}
