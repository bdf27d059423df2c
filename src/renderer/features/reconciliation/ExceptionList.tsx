import { Button, Group, Text } from '@mantine/core';
import { useStore } from 'zustand';
import type { ExceptionKind, ExceptionRow, ExceptionScope } from '../../../shared/contract';
import { methodLabel } from '../../../shared/spec/methods';
import { Amount } from '../../components/Amount';
import { CellLines } from '../../components/CellLines';
import { CopyValue } from '../../components/CopyValue';
import { DATE_TIME_COLUMN_WIDTH, DateTime } from '../../components/DateTime';
import { KeysetTable } from '../../components/KeysetTable';
import { type Column, TWO_LINE_ROW_HEIGHT } from '../../components/VirtualTable';
import { navigate } from '../../shell/use-route';
import { StatusBadge } from '../transactions/StatusBadge';
import { VerificationStateBadge } from '../transactions/VerificationBadge';
import { formatMoney } from '../transactions/format';
import { subjectNoun } from '../transactions/status';
import { notifiedAndReadText } from './exception-kinds';
import { ExportCsvButton } from './ExportCsvButton';
import { useExceptionList } from './use-exception-list';
import { SettleUnknownButton } from './SettleUnknownButton';
import { useAccess } from '../../stores/access';
import { requestLandingFocus } from '../../components/focus-landing';

const code = (value: string | null) => (
  <Text span size="sm" ff="monospace">
    {value ?? '—'}
  </Text>
);

/**
 * Two lines a row, so that at 1280 px every value reads whole but a long reference and the detail
 * (a sentence, whole on hover and on the transaction's page): the time; the transaction over what
 * is wrong with it; the amount over the method; the ledger's status over its verification; what was
 * notified and what the gateway's last status read said.
 */
const columns: Column<ExceptionRow>[] = [
  { key: 'at', header: 'When', width: DATE_TIME_COLUMN_WIDTH, render: (r) => <DateTime iso={r.at} /> },
  {
    key: 'reference',
    header: 'Transaction / detail',
    width: 'minmax(200px, 1fr)',
    render: (r) => {
      const value = r.reference ?? r.gatewayId;
      return (
        <CellLines
          first={
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
          }
          second={r.detail ?? ''}
        />
      );
    },
  },
  {
    key: 'amount',
    header: 'Amount / method',
    width: 200,
    align: 'right',
    render: (r) => (
      <CellLines
        first={r.amount && r.currency ? <Amount value={r.amount} currency={r.currency} /> : '—'}
        firstTitle={r.amount && r.currency ? formatMoney(r.amount, r.currency) : undefined}
        second={r.method ? methodLabel(r.method) : '—'}
      />
    ),
  },
  {
    key: 'status',
    header: 'Ledger status / verification',
    width: 190,
    render: (r) => (
      <CellLines
        first={r.subject ? <StatusBadge subject={r.subject} code={r.statusCode} /> : code(r.statusCode)}
        second={r.verification !== null ? <VerificationStateBadge state={r.verification} hint={notifiedAndReadText(r)} /> : '—'}
      />
    ),
  },
  {
    key: 'codes',
    header: 'Notified / read',
    width: 120,
    render: (r) => (
      <Text span size="sm" ff="monospace" title={notifiedAndReadText(r)} data-testid="notified-read">
        {r.notifiedStatus ?? '—'} / {r.verifiedStatus ?? '—'}
      </Text>
    ),
  },
];

const rowKey = (row: ExceptionRow) => row.key;

/** Where a row leads: its transaction, or for a notification with none (an orphan) the webhook inspector. */
function openRow(row: ExceptionRow): void {
  if (row.subject && row.rowId !== null) {
    requestLandingFocus();
    navigate(row.subject === 'payin' ? 'payins' : 'payouts', { id: row.rowId });
  } else if (row.notificationId !== null) {
    requestLandingFocus();
    navigate('webhooks', { id: row.notificationId });
  }
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
        height={Math.min(8, Math.max(3, shown)) * TWO_LINE_ROW_HEIGHT + 4}
        rowHeight={TWO_LINE_ROW_HEIGHT}
        empty={<Text c="dimmed">Nothing to reconcile here: no {label.toLowerCase()}.</Text>}
      />
    </>
  );
}
