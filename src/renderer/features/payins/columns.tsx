import { Text } from '@mantine/core';
import type { PayinView } from '../../../shared/contract';
import { METHOD_LABELS } from '../../../shared/spec/methods';
import type { Column } from '../../components/VirtualTable';
import { formatMoney, formatTime } from '../transactions/format';
import { StatusBadge } from '../transactions/StatusBadge';
import { VerificationBadge } from '../transactions/VerificationBadge';

export const payinColumns: Column<PayinView>[] = [
  { key: 'created', header: 'Created', width: 150, render: (p) => <span title={p.createdAt}>{formatTime(p.createdAt)}</span> },
  {
    key: 'request',
    header: 'request_id',
    width: 'minmax(130px, 1.3fr)',
    render: (p) => (
      <Text span size="sm" ff="monospace" title={p.payinId ? `payin_id ${p.payinId}` : undefined}>
        {p.requestId}
      </Text>
    ),
  },
  { key: 'email', header: 'E-mail', width: 'minmax(130px, 1fr)', render: (p) => p.email },
  { key: 'method', header: 'Method', width: 110, render: (p) => (METHOD_LABELS as Record<string, string>)[p.method] ?? p.method },
  {
    key: 'amount',
    header: 'Amount',
    width: 170,
    align: 'right',
    render: (p) => (
      <Text span size="sm" ff="monospace">
        {formatMoney(p.amount, p.currency, p.method)}
      </Text>
    ),
  },
  { key: 'status', header: 'Status', width: 160, render: (p) => <StatusBadge subject="payin" code={p.statusCode} attemptState={p.attempt?.state} /> },
  { key: 'verification', header: 'Notified / verified', width: 150, render: (p) => <VerificationBadge transaction={p} /> },
];
