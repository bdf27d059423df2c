// How many ledger rows (and notifications) carry each code, kept current as transactions change.
import { useMemo } from 'react';
import type { CodeUsage } from '../../../shared/contract';
import { useLiveQuery } from '../../components/use-live-query';
import { useApi } from '../../stores/context';

export const usageKey = (kind: CodeUsage['kind'], code: string | number) => `${kind}:${String(code)}`;

export function useCodeUsage() {
  const api = useApi();
  const query = useLiveQuery(() => api.invoke('codes:usage'), [], {
    pushes: ['payins:payin-changed', 'payouts:payout-changed', 'notifications:notification-changed'],
    throttleMs: 3_000,
  });
  const byCode = useMemo(() => (query.data ? new Map(query.data.codes.map((usage) => [usageKey(usage.kind, usage.code), usage])) : null), [query.data]);
  return { ...query, byCode, unknown: query.data?.unknown ?? null };
}
