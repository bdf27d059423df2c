import { Button, Group, Text } from '@mantine/core';
import type { ExceptionKind, ExceptionRow } from '../../../shared/contract';
import { type Column, VirtualTable } from '../../components/VirtualTable';
import { navigate } from '../../shell/use-route';
import { formatMoney, formatTime } from '../transactions/format';
import { StatusBadge } from '../transactions/StatusBadge';
import { subjectNoun } from '../transactions/status';
import { ExportCsvButton } from './ExportCsvButton';
import { useExceptionPages } from './use-exception-pages';
import { LoadError } from '../../components/LoadError';

const code = (value: string | null) => (
  <Text span size="sm" ff="monospace">
    {value ?? '—'}
  </Text>
);

const columns: Column<ExceptionRow>[] = [
  { key: 'at', header: 'When', width: 150, render: (r) => formatTime(r.at) },
  {
    key: 'reference',
    header: 'Transaction',
    width: '1.6fr',
    render: (r) => (
      <span title={r.reference ?? undefined}>
        {r.subject ? `${subjectNoun(r.subject)} ` : ''}
        <Text span size="sm" ff="monospace">
          {r.reference ?? r.gatewayId ?? (r.notificationId !== null ? `notification ${r.notificationId}` : '—')}
        </Text>
      </span>
    ),
  },
  { key: 'method', header: 'Method', width: 110, render: (r) => r.method ?? '—' },
  { key: 'amount', header: 'Amount', width: 130, align: 'right', render: (r) => (r.amount && r.currency ? formatMoney(r.amount, r.currency, r.method ?? '') : '—') },
  { key: 'status', header: 'Ledger status', width: 170, render: (r) => (r.subject ? <StatusBadge subject={r.subject} code={r.statusCode} /> : code(r.statusCode)) },
  { key: 'notified', header: 'Notified', width: 80, render: (r) => code(r.notifiedStatus) },
  { key: 'verified', header: 'Gateway says', width: 110, render: (r) => code(r.verifiedStatus) },
  { key: 'detail', header: 'Detail', width: '1.4fr', render: (r) => <span title={r.detail ?? undefined}>{r.detail ?? ''}</span> },
];

/** Where a row leads: its transaction, or for a notification with none (an orphan) the webhook inspector. */
function openRow(row: ExceptionRow): void {
  if (row.subject && row.rowId !== null) navigate(row.subject === 'payin' ? 'payins' : 'payouts', { id: row.rowId });
  else if (row.notificationId !== null) navigate('webhooks', { id: row.notificationId });
}

interface Props {
  kind: ExceptionKind;
  label: string;
  explains: string;
  scope: { profileId?: string; pendingOlderThanMinutes: number };
  enabled: boolean;
  /** Bumped by the screen when the ledger changed (a sweep ended, Refresh): reload from the first page. */
  refreshKey: number;
}

export function ExceptionList({ kind, label, explains, scope, enabled, refreshKey }: Props) {
  const pages = useExceptionPages(kind, scope, enabled, refreshKey);
  return (
    <>
      <Group justify="space-between" my="xs">
        <Text size="sm" c="dimmed">
          {explains} {pages.total !== null && <strong data-testid="exception-total">{pages.total.toLocaleString('en')} in all.</strong>}
        </Text>
        <Group gap="xs">
          <Button variant="subtle" size="xs" onClick={pages.reload} disabled={!enabled}>
            Refresh list
          </Button>
          <ExportCsvButton label="Export list CSV" input={{ what: 'exceptions', kind, ...scope }} disabled={!enabled} />
        </Group>
      </Group>
      {pages.error && <LoadError title={`${label} could not be loaded`} message={pages.error} onRetry={pages.reload} />}
      <VirtualTable
        label={label}
        columns={columns}
        rows={pages.items}
        rowKey={(r) => r.key}
        onOpen={openRow}
        onEndReached={pages.loadMore}
        hasMore={pages.nextCursor !== null}
        loading={pages.loading}
        height={Math.min(440, Math.max(3, pages.items.length) * 40 + 4)}
        empty={<Text c="dimmed">Nothing to reconcile here: no {label.toLowerCase()}.</Text>}
      />
    </>
  );
}
