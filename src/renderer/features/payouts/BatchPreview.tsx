import { Alert, Anchor, Badge, Button, Card, Checkbox, Group, List, Progress, Stack, Switch, Text, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import type { ProfileView } from '../../../shared/contract';
import { destinationSummary } from '../../../shared/payout-destination';
import { methodLabel } from '../../../shared/spec/methods';
import { Amount } from '../../components/Amount';
import { countOf } from '../../components/count';
import { Dialog } from '../../components/Dialog';
import { VirtualTable, type Column } from '../../components/VirtualTable';
import { routeHash } from '../../shell/use-route';
import { formatMoney } from '../transactions/format';
import { describePayout, leftOutReason, previewAmount, rowState, sendable, totalsOf, type PreviewRow, type RowState } from './csv';
import { EnvironmentBanner } from './EnvironmentBanner';

/** Each state as its badge says it (whole at 1280 px: the Check column is as wide as the longest). */
const STATES: Record<RowState, { color: string; label: (row: PreviewRow) => string }> = {
  problem: { color: 'red', label: (r) => countOf(Object.keys(r.problems).length, 'problem', 'problems') },
  duplicate: { color: 'orange', label: () => 'duplicate?' },
  confirmed: { color: 'grape', label: () => 'send anyway' },
  warning: { color: 'yellow', label: () => 'warning' },
  ok: { color: 'teal', label: () => 'ok' },
};

/** Rows the left-out confirmation lists by line; the rest are counted. */
const LISTED = 20;

interface BatchPreviewProps {
  fileName: string;
  rows: PreviewRow[];
  /** Lines of possible duplicates the person confirmed (sent anyway). */
  confirmed: ReadonlySet<number>;
  onConfirm: (line: number, confirmed: boolean) => void;
  describeField: (field: string) => string;
  /** The person follows a link to an earlier payout: the check is kept for when they come back. */
  onLeave: () => void;
  profile: ProfileView;
  /** Upload progress (rows stored by main), while starting. */
  uploading: { done: number; total: number } | null;
  error: string | null;
  onBack: () => void;
  /** Every row: main keeps those left out, with why, beside those it sends. */
  onStart: (rows: PreviewRow[]) => void;
}

/**
 * Every row checked with the shared rules and against the ledger, each problem named on its row;
 * a row that may repeat an earlier payout is sent only once the person confirms it on its row.
 * The rows without problems (and the confirmed duplicates) are what a start sends; a start that
 * leaves rows out says so first. The environment and the totals are shown next to the start button.
 */
export function BatchPreview({ fileName, rows, confirmed, onConfirm, describeField, onLeave, profile, uploading, error, onBack, onStart }: BatchPreviewProps) {
  const [onlyProblems, setOnlyProblems] = useState(false);
  const [asking, setAsking] = useState(false);
  const send = useMemo(() => rows.filter((r) => sendable(r, confirmed)), [rows, confirmed]);
  const states = useMemo(() => {
    const counts: Record<RowState, number> = { problem: 0, duplicate: 0, confirmed: 0, warning: 0, ok: 0 };
    for (const row of rows) counts[rowState(row, confirmed)]++;
    return counts;
  }, [rows, confirmed]);
  const leftOut = rows.filter((r) => !sendable(r, confirmed));
  const shown = onlyProblems ? rows.filter((r) => rowState(r, confirmed) !== 'ok') : rows;
  const totals = useMemo(() => totalsOf(send), [send]);
  const live = profile.environment === 'live';
  const startLabel = live ? `Review LIVE batch of ${send.length.toLocaleString()}` : `Start batch of ${send.length.toLocaleString()}`;

  const columns: Column<PreviewRow>[] = [
    { key: 'line', header: 'Line', width: 56, render: (r) => r.line },
    {
      key: 'check',
      header: 'Check',
      width: 140,
      render: (r) => {
        const state = rowState(r, confirmed);
        return (
          <Badge color={STATES[state].color} variant="light" data-row-state={state} styles={{ label: { overflow: 'visible' } }}>
            {STATES[state].label(r)}
          </Badge>
        );
      },
    },
    { key: 'method', header: 'Method', width: 124, render: (r) => (r.method ? methodLabel(r.method) : '—') },
    {
      key: 'amount',
      header: 'Amount',
      width: 140,
      align: 'right',
      // A refused amount is shown as typed, beside its problem: never as a number it is not.
      render: (r) => {
        const shown = previewAmount(r);
        if (!shown.typed) return r.form.amount === undefined ? '—' : <Amount value={r.form.amount} currency={r.form.currency ?? ''} />;
        return (
          <Text span size="sm" ff="monospace" c="red" data-typed-amount title={`As typed in the file: ${shown.text}`}>
            {shown.text}
          </Text>
        );
      },
    },
    { key: 'beneficiary', header: 'Beneficiary', width: 'minmax(110px, 1fr)', wrap: true, render: (r) => `${r.form.customer?.firstName ?? ''} ${r.form.customer?.lastName ?? ''}`.trim() || '—' },
    { key: 'destination', header: 'Destination', width: 'minmax(140px, 1fr)', wrap: true, render: (r) => <Text span size="sm" ff="monospace">{destinationSummary(r.method, r.form.paymentDetails ?? {}) || '—'}</Text> },
    { key: 'problems', header: 'Problems', width: 'minmax(260px, 2.5fr)', wrap: true, render: (r) => <RowProblems row={r} confirmed={confirmed.has(r.line)} onConfirm={onConfirm} describeField={describeField} onLeave={onLeave} /> },
  ];

  return (
    <Stack gap="md">
      <Card withBorder>
        <Stack gap="sm">
          <Group justify="space-between" align="baseline">
            <Title order={4}>Check {fileName}</Title>
            <Group gap="xs" data-testid="preview-summary">
              <Badge color="teal" variant="light">
                {send.length.toLocaleString()} ready
              </Badge>
              {states.problem > 0 && (
                <Badge color="red" variant="light">
                  {states.problem.toLocaleString()} with problems (left out)
                </Badge>
              )}
              {states.duplicate + states.confirmed > 0 && (
                <Badge color="orange" variant="light" data-testid="duplicates-summary">
                  {countOf(states.duplicate + states.confirmed, 'possible duplicate', 'possible duplicates')} ({states.confirmed.toLocaleString()} confirmed)
                </Badge>
              )}
              {states.warning > 0 && (
                <Badge color="yellow" variant="light">
                  {states.warning.toLocaleString()} over a daily limit
                </Badge>
              )}
            </Group>
          </Group>
          <Switch label="Only rows with problems or warnings" checked={onlyProblems} onChange={(event) => setOnlyProblems(event.currentTarget.checked)} />
          <VirtualTable label="Batch preview" columns={columns} rows={shown} rowKey={(r) => String(r.line)} height={Math.min(460, 44 + shown.length * 56)} rowHeight={44} empty={<Text c="dimmed">No row has a problem.</Text>} />
        </Stack>
      </Card>
      <Card withBorder>
        <Stack gap="sm">
          <Title order={4}>Start the batch</Title>
          <EnvironmentBanner environment={profile.environment} profileName={profile.name} />
          {send.length === 0 ? (
            <Text c="red">No row can be sent: fix the file or the mapping.</Text>
          ) : (
            <Text size="sm" data-testid="batch-totals">
              {countOf(send.length, 'payout', 'payouts')}: {totals.map((t) => `${formatMoney(t.amount, t.currency)} (${t.count.toLocaleString()})`).join(' · ')}
            </Text>
          )}
          {leftOut.length > 0 && (
            <Text size="sm" c="red" data-testid="left-out-note">
              {send.length.toLocaleString()} of {countOf(rows.length, 'row', 'rows')} will be sent; {leftOut.length.toLocaleString()} {leftOut.length === 1 ? 'is' : 'are'} left out (kept with the batch's record, with why).
            </Text>
          )}
          <Text size="xs" c="dimmed">
            Every payout goes through the same checks as a manual one (limits included) and is sent exactly once, even if the app is closed or killed meanwhile: the batch resumes at the next start.
          </Text>
          {live && (
            <Text size="sm" c="red">
              A live batch is stored first, then main shows its review (count and totals as it will send them) and starts it only once you confirm there.
            </Text>
          )}
          {error && (
            <Alert color="red" title="The batch was not started" role="alert" style={{ whiteSpace: 'pre-line' }}>
              {error}
            </Alert>
          )}
          {uploading && <Progress value={(uploading.done / Math.max(1, uploading.total)) * 100} aria-label="Storing the batch" />}
          <Group justify="space-between">
            <Button variant="default" onClick={onBack} disabled={uploading !== null}>
              Back to the mapping
            </Button>
            <Button color={live ? 'red' : undefined} onClick={() => (leftOut.length > 0 ? setAsking(true) : onStart(rows))} loading={uploading !== null} disabled={send.length === 0 || !profile.payoutsEnabled}>
              {startLabel}
            </Button>
          </Group>
        </Stack>
      </Card>
      <Dialog opened={asking} onClose={() => setAsking(false)} title="Rows will be left out" size="lg">
        <Stack gap="sm" data-testid="left-out-confirmation">
          <Text fw={600} data-testid="left-out-count">
            {send.length.toLocaleString()} of {countOf(rows.length, 'row', 'rows')} will be sent; {leftOut.length.toLocaleString()} {leftOut.length === 1 ? 'is' : 'are'} left out.
          </Text>
          <List size="sm" spacing={4} aria-label="Rows left out">
            {leftOut.slice(0, LISTED).map((r) => (
              <List.Item key={r.line}>
                Line {r.line}: {leftOutReason(r, describeField)}
              </List.Item>
            ))}
          </List>
          {leftOut.length > LISTED && <Text size="sm">…and {countOf(leftOut.length - LISTED, 'more row', 'more rows')}.</Text>}
          <Text size="sm" c="dimmed">
            The batch's record keeps the rows left out and why, beside the payouts it sends.
          </Text>
          <Group justify="space-between">
            <Button variant="default" onClick={() => setAsking(false)}>
              Back to the check
            </Button>
            <Button
              color={live ? 'red' : undefined}
              onClick={() => {
                setAsking(false);
                onStart(rows);
              }}
            >
              {live ? `Review LIVE batch of ${send.length.toLocaleString()}` : `Send ${countOf(send.length, 'payout', 'payouts')}`}
            </Button>
          </Group>
        </Stack>
      </Dialog>
    </Stack>
  );
}

/** A row's problems in words, whole (they wrap); a possible duplicate names the earlier payouts, each a link, and asks for the row's own confirmation. */
function RowProblems({ row, confirmed, onConfirm, describeField, onLeave }: { row: PreviewRow; confirmed: boolean; onConfirm: (line: number, confirmed: boolean) => void; describeField: (field: string) => string; onLeave: () => void }) {
  const problems = Object.entries(row.problems);
  if (problems.length > 0) {
    return (
      <Text span size="sm" c="red" data-problems>
        {problems.map(([field, problem], i) => (
          <span key={field}>
            {i > 0 && ' · '}
            {describeField(field)}: {problem}
            {field === 'merchantReference' && row.reusedBy && (
              <>
                {' '}
                (<Anchor href={routeHash('payouts', { id: row.reusedBy.id })} size="sm" onClick={onLeave}>open payout {row.reusedBy.merchantReference}</Anchor>)
              </>
            )}
          </span>
        ))}
      </Text>
    );
  }
  if (row.duplicates.length > 0) {
    return (
      <Stack gap={2} py={4} data-duplicate-of={row.duplicates.map((d) => d.id).join(' ')}>
        <Text span size="sm" c="orange">
          Possible duplicate: the same account, amount and currency as{' '}
          {row.duplicates.map((d, i) => (
            <span key={d.id}>
              {i > 0 && ', '}
              payout{' '}
              <Anchor href={routeHash('payouts', { id: d.id })} size="sm" onClick={onLeave}>
                {describePayout(d)}
              </Anchor>
            </span>
          ))}
          .
        </Text>
        <Checkbox size="xs" label="Send anyway: this is a new payout" checked={confirmed} onChange={(event) => onConfirm(row.line, event.currentTarget.checked)} aria-label={`Send line ${row.line} anyway: it is not a repeat of ${row.duplicates.map((d) => d.merchantReference).join(', ')}`} />
      </Stack>
    );
  }
  return row.warning ? (
    <Text span size="sm" c="yellow.8">
      {row.warning}
    </Text>
  ) : (
    ''
  );
}
