import { Button, Group, Text } from '@mantine/core';
import { useStore } from 'zustand';
import type { ExceptionKind, ExceptionRow, ExceptionScope } from '../../../shared/contract';
import { methodLabel } from '../../../shared/spec/methods';
import { Amount } from '../../components/Amount';
import { CopyValue } from '../../components/CopyValue';
import { DateTime } from '../../components/DateTime';
import { KeysetTable } from '../../components/KeysetTable';
import type { Column } from '../../components/VirtualTable';
import { navigate } from '../../shell/use-route';
import { StatusBadge } from '../transactions/StatusBadge';
import { VerificationStateBadge } from '../transactions/VerificationBadge';
import { subjectNoun } from '../transactions/status';
import { ExportCsvButton } from './ExportCsvButton';
import { useExceptionList } from './use-exception-list';
import { SettleUnknownButton } from './SettleUnknownButton';
import { useAccess } from '../../stores/access';

const code = (value: string | null) => (
  <Text span size="sm" ff="monospace">
    {value ?? '—'}
  </Text>
);

const columns: Column<ExceptionRow>[] = [
  { key: 'at', header: 'When', width: 180, render: (r) => <DateTime iso={r.at} /> },
  {
    key: 'reference',
    header: 'Transaction',
    width: 'minmax(180px, 1.6fr)',
    render: (r) => {
      const value = r.reference ?? r.gatewayId;
      return (
        <Group gap={4} wrap="nowrap" style={{ minWidth: 0 }}>
          {r.subject && (
            <Text span size="sm" style={{ flexShrink: 0 }}>
              {subjectNoun(r.subject)}
            </Text>
          )}
          {value !== null ? (
            <CopyValue value={value} label={r.reference !== null ? 'reference' : 'gateway id'} truncate />
          ) : (
            <Text span size="sm">
              {r.notificationId !== null ? `notification ${r.notificationId}` : '—'}
            </Text>
          )}
        </Group>
      );
    },
  },
  { key: 'method', header: 'Method', width: 120, render: (r) => (r.method ? methodLabel(r.method) : '—') },
  { key: 'amount', header: 'Amount', width: 200, align: 'right', render: (r) => (r.amount && r.currency ? <Amount value={r.amount} currency={r.currency} /> : '—') },
  { key: 'status', header: 'Ledger status', width: 150, render: (r) => (r.subject ? <StatusBadge subject={r.subject} code={r.statusCode} /> : code(r.statusCode)) },
  {
    key: 'verification',
    header: 'Verification · notified / read',
    width: 'minmax(140px, 1fr)',
    render: (r) => (
      <Group gap={6} wrap="nowrap">
        {r.verification !== null && (
          <span style={{ flexShrink: 0 }}>
            <VerificationStateBadge state={r.verification} hint={`Notified: ${r.notifiedStatus ?? 'nothing'}. Status read: ${r.verifiedStatus ?? 'none yet'}.`} />
          </span>
        )}
        <Text span size="sm" ff="monospace" truncate title="What was notified / what the gateway's last status read said">
          {r.notifiedStatus ?? '—'} / {r.verifiedStatus ?? '—'}
        </Text>
      </Group>
    ),
  },
  { key: 'detail', header: 'Detail', width: '1.4fr', render: (r) => <span title={r.detail ?? undefined}>{r.detail ?? ''}</span> },
];

const rowKey = (row: ExceptionRow) => row.key;

/** Where a row leads: its transaction, or for a notification with none (an orphan) the webhook inspector. */
function openRow(row: ExceptionRow): void {
  if (row.subject && row.rowId !== null) navigate(row.subject === 'payin' ? 'payins' : 'payouts', { id: row.rowId });
  else if (row.notificationId !== null) navigate('webhooks', { id: row.notificationId });
}

interface Props {
  kind: ExceptionKind;
  label: string;
  explains: string;
  scope: ExceptionScope;
  enabled: boolean;
  /** Bumped by the screen when the ledger changed (a sweep ended, Refresh): reload from the first page. */
  refreshKey: number;
}

export function ExceptionList({ kind, label, explains, scope, enabled, refreshKey }: Props) {
  const store = useExceptionList(kind, scope, enabled, refreshKey);
  const { can } = useAccess();
  const total = useStore(store, (state) => state.total);
  const shown = useStore(store, (state) => state.rows.length);
  const reload = () => void store.getState().refresh();
  return (
    <>
      <Group justify="space-between" my="xs">
        <Text size="sm" c="dimmed">
          {explains} {total !== null && <strong data-testid="exception-total">{total.toLocaleString('en')} in all.</strong>}
        </Text>
        <Group gap="xs">
          {kind === 'unknown_attempts' && can('attempts:settle-unknown') && <SettleUnknownButton profileId={scope.profileId} disabled={!enabled} onDone={reload} />}
          <Button variant="subtle" size="xs" onClick={reload} disabled={!enabled}>
            Refresh list
          </Button>
          <ExportCsvButton label="Export list CSV" input={{ what: 'exceptions', kind, ...scope }} disabled={!enabled} />
        </Group>
      </Group>
      <KeysetTable
        store={store}
        label={label}
        columns={columns}
        rowKey={rowKey}
        onOpen={openRow}
        errorTitle={`${label} could not be loaded`}
        height={Math.min(440, Math.max(3, shown) * 40 + 4)}
        empty={<Text c="dimmed">Nothing to reconcile here: no {label.toLowerCase()}.</Text>}
      />
    </>
  );
}
