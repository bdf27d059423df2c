import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { Badge, Button, Card, Group, Select, Stack, Table, Text, Textarea, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import type { DailyRow, ImportSummary, ProposalView, SettlementView } from '../../../../shared/contract';
import { FORMAT_LABELS, KIND_LABELS } from '../../../../shared/statement-layout';
import { methodLabel } from '../../../../shared/spec/methods';
import { Amount } from '../../../components/Amount';
import { countOf } from '../../../components/count';
import { DateTime } from '../../../components/DateTime';
import { useAction } from '../../../components/use-action';
import { useAccess } from '../../../stores/access';
import { useApi } from '../../../stores/context';
import { RowTable } from '../../../components/RowTable';

const right = { textAlign: 'right' } as const;

/** A difference: nothing to see when it is zero, in colour when it is not. */
function Difference({ value, currency }: { value: string | null; currency: string }) {
  if (value === null) return <Text size="sm" c="dimmed">no credit</Text>;
  const zero = !/[1-9]/.test(value);
  return (
    <Text size="sm" c={zero ? undefined : 'red'} fw={zero ? undefined : 600}>
      <Amount value={value} currency={currency} />
    </Text>
  );
}

/** Each settlement: gross, fees, net, the bank credit and the difference; a row opens it. */
export function SettlementsTable({ settlements, more, onOpen }: { settlements: SettlementView[]; more: boolean; onOpen: (s: SettlementView) => void }) {
  return (
    <Stack gap="xs">
      <Title order={3}>Settlements</Title>
      {settlements.length === 0 ? (
        <Text size="sm" c="dimmed">
          No settlement report imported for these dates yet.
        </Text>
      ) : (
        <div style={{ overflowX: 'auto' }}>
          <Table aria-label="Settlements" highlightOnHover verticalSpacing={4} data-testid="settlements">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Settlement / value date</Table.Th>
                <Table.Th style={right}>Gross / fees</Table.Th>
                <Table.Th style={right}>Net / bank credit</Table.Th>
                <Table.Th style={right}>Difference</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {settlements.map((s) => (
                <Table.Tr key={`${s.profileId}:${s.settlementId}`} data-settlement={s.settlementId} style={{ cursor: 'pointer' }} onClick={() => onOpen(s)}>
                  <Table.Td>
                    <Button variant="subtle" size="compact-sm" ff="monospace" px={0} onClick={() => onOpen(s)}>
                      {s.settlementId}
                    </Button>
                    <Text size="xs" c="dimmed">
                      {s.valueDate ?? 'no value date'} · {countOf(s.lines, 'line', 'lines')}
                    </Text>
                  </Table.Td>
                  <Table.Td style={right}>
                    <Text size="sm">
                      <Amount value={s.gross} currency={s.currency} />
                    </Text>
                    <Text size="xs" c="dimmed">
                      fees <Amount value={s.fees} currency={s.currency} />
                    </Text>
                  </Table.Td>
                  <Table.Td style={right}>
                    <Text size="sm">
                      <Amount value={s.net} currency={s.currency} />
                    </Text>
                    <Text size="xs" c="dimmed">
                      {s.credited === null ? 'no bank credit' : <>credited <Amount value={s.credited} currency={s.currency} /></>}
                    </Text>
                  </Table.Td>
                  <Table.Td style={right}>
                    <Difference value={s.difference} currency={s.currency} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </div>
      )}
      {more && (
        <Text size="xs" c="dimmed">
          The latest 200 settlements: narrow the dates to see older ones.
        </Text>
      )}
    </Stack>
  );
}

/**
 * Per day, currency and method: what the ledger says succeeded against what was settled, the fees and
 * the effective fee rate (exact figures in the table; the chart plots them for one currency).
 */
export function DailyView({ rows }: { rows: DailyRow[] }) {
  const currencies = useMemo(() => [...new Set(rows.map((r) => r.currency))].sort(), [rows]);
  const [chosen, setChosen] = useState<string | null>(null);
  const currency = chosen && currencies.includes(chosen) ? chosen : (currencies[0] ?? null);
  const chart = useMemo(() => {
    const byDay = new Map<string, { day: string; 'Succeeded (ledger)': number; Settled: number; Fees: number }>();
    for (const r of rows.filter((row) => row.currency === currency)) {
      const d = byDay.get(r.day) ?? { day: r.day, 'Succeeded (ledger)': 0, Settled: 0, Fees: 0 };
      // Bars are drawn from Number(); the exact figures are in the table below.
      d['Succeeded (ledger)'] += Number(r.ledgerAmount);
      d.Settled += Number(r.settledAmount);
      d.Fees += Number(r.fees);
      byDay.set(r.day, d);
    }
    return [...byDay.values()].sort((a, b) => (a.day < b.day ? -1 : 1));
  }, [rows, currency]);
  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <Title order={3}>Succeeded against settled, per day</Title>
        {currencies.length > 1 && <Select aria-label="Currency of the chart" data={currencies} value={currency} onChange={setChosen} allowDeselect={false} w={120} />}
      </Group>
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          Nothing succeeded or settled in these dates.
        </Text>
      ) : (
        <>
          <Card withBorder data-testid="chart-settled-by-day">
            <Text fw={500} mb="xs">
              {currency}: succeeded in the ledger, settled, and fees
            </Text>
            <BarChart
              h={220}
              data={chart}
              dataKey="day"
              series={[
                { name: 'Succeeded (ledger)', color: 'indigo.6' },
                { name: 'Settled', color: 'teal.6' },
                { name: 'Fees', color: 'orange.6' },
              ]}
              withLegend
              legendProps={{ verticalAlign: 'bottom' }}
              tickLine="y"
              tooltipAnimationDuration={0}
            />
          </Card>
          <div style={{ overflowX: 'auto' }}>
            <Table aria-label="Succeeded against settled per day, currency and method" verticalSpacing={4} data-testid="daily">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Day / method</Table.Th>
                  <Table.Th style={right}>Succeeded (ledger)</Table.Th>
                  <Table.Th style={right}>Settled</Table.Th>
                  <Table.Th style={right}>Fees / rate</Table.Th>
                  <Table.Th style={right}>Difference</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((r) => (
                  <Table.Tr key={`${r.day}:${r.currency}:${r.method}`}>
                    <Table.Td>
                      <Text size="sm">{r.day}</Text>
                      <Text size="xs" c="dimmed">
                        {r.method ? methodLabel(r.method) : 'method not given'}
                      </Text>
                    </Table.Td>
                    <Table.Td style={right}>
                      <Text size="sm">
                        <Amount value={r.ledgerAmount} currency={r.currency} />
                      </Text>
                      <Text size="xs" c="dimmed">
                        {countOf(r.ledgerCount, 'pay-in', 'pay-ins')}
                      </Text>
                    </Table.Td>
                    <Table.Td style={right}>
                      <Text size="sm">
                        <Amount value={r.settledAmount} currency={r.currency} />
                      </Text>
                      <Text size="xs" c="dimmed">
                        {countOf(r.settledCount, 'line', 'lines')}
                      </Text>
                    </Table.Td>
                    <Table.Td style={right}>
                      <Text size="sm">
                        <Amount value={r.fees} currency={r.currency} />
                      </Text>
                      <Text size="xs" c="dimmed">
                        {r.feeRate === null ? '—' : `${r.feeRate} %`}
                      </Text>
                    </Table.Td>
                    <Table.Td style={right}>
                      <Difference value={r.difference} currency={r.currency} />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </div>
        </>
      )}
    </Stack>
  );
}

/** Matches made by something other than an id, each with why, for a person to accept or refuse. */
export function ProposalsCard({ proposals, onDecided }: { proposals: ProposalView[]; onDecided: () => void }) {
  const api = useApi();
  const action = useAction();
  const { can, why } = useAccess();
  const [notes, setNotes] = useState<Record<number, string>>({});
  if (proposals.length === 0) return null;
  const decide = async (p: ProposalView, accept: boolean) => {
    const note = notes[p.id]?.trim();
    const done = await action.run(() => api.invoke('statements:decide-proposal', { proposalId: p.id, accept, ...(note ? { note } : {}) }), accept ? 'Matched, as proposed' : 'Refused: it will not be proposed again');
    if (done) onDecided();
  };
  return (
    <Card withBorder data-testid="proposals">
      <Stack gap="sm">
        <Group gap="xs">
          <Title order={3}>Proposed matches</Title>
          <Badge color="orange">{proposals.length}</Badge>
        </Group>
        <Text size="sm" c="dimmed">
          Nothing is matched without an id unless you accept it.
        </Text>
        {action.error && (
          <Text size="sm" c="red" role="alert">
            {action.error}
          </Text>
        )}
        {proposals.map((p) => (
          <Card key={p.id} withBorder padding="sm" data-proposal={p.id}>
            <Stack gap={6}>
              <Text size="sm">
                Bank credit of <Amount value={p.bankLine.amount} currency={p.bankLine.currency} /> booked {p.bankLine.bookingDate}
                {p.bankLine.remittance ? ` (“${p.bankLine.remittance}”)` : ''} → settlement <Text span ff="monospace">{p.settlement.settlementId}</Text>
              </Text>
              <Text size="sm" c="dimmed">
                {p.reason}
              </Text>
              <Group align="end" gap="xs">
                <Textarea aria-label={`Note on proposal ${p.id}`} placeholder="Note (optional)" autosize minRows={1} value={notes[p.id] ?? ''} onChange={(e) => setNotes({ ...notes, [p.id]: e.currentTarget.value })} w={320} />
                <Button size="xs" onClick={() => void decide(p, true)} disabled={!can('statements:decide-proposal')} title={why('statements:decide-proposal') ?? undefined} loading={action.busy}>
                  Accept
                </Button>
                <Button size="xs" variant="default" onClick={() => void decide(p, false)} disabled={!can('statements:decide-proposal')} title={why('statements:decide-proposal') ?? undefined}>
                  Refuse
                </Button>
              </Group>
            </Stack>
          </Card>
        ))}
      </Stack>
    </Card>
  );
}

const STATE_COLOR = { running: 'blue', imported: 'teal', refused: 'red' } as const;

/** The latest imports: what came in, from where, how much was new, who did it; a refused one with its line and reason. */
export function ImportsTable({ imports }: { imports: ImportSummary[] }) {
  if (imports.length === 0) return null;
  return (
    <Stack gap="xs">
      <Title order={3}>Recent imports</Title>
      <div style={{ overflowX: 'auto' }}>
        <RowTable
          aria-label="Recent imports"
          verticalSpacing={4}
          data-testid="imports"
          headings={['When / by', 'File / source', { label: 'Lines / added, already there', style: right }, 'State']}
          items={imports}
          row={(i) => (
            <Table.Tr key={i.id} data-import={i.id}>
              <Table.Td>
                <Text size="sm">
                  <DateTime iso={i.startedAt} />
                </Text>
                <Text size="xs" c="dimmed">
                  {i.createdBy ?? 'this desk'}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm" style={{ wordBreak: 'break-all' }}>
                  {i.fileName}
                </Text>
                <Text size="xs" c="dimmed">
                  {i.source} · {KIND_LABELS[i.kind]}, {FORMAT_LABELS[i.format]}
                </Text>
              </Table.Td>
              <Table.Td style={right}>
                <Text size="sm">{i.lines.toLocaleString('en')}</Text>
                <Text size="xs" c="dimmed">
                  {i.added.toLocaleString('en')} added, {i.alreadyThere.toLocaleString('en')} already there
                </Text>
              </Table.Td>
              <Table.Td>
                <Badge color={STATE_COLOR[i.state]} variant="light">
                  {i.state}
                </Badge>
                {i.errorReason && (
                  <Text size="xs" c="red">
                    {i.errorLine === null ? '' : `Line ${i.errorLine.toLocaleString('en')}: `}
                    {i.errorReason}
                  </Text>
                )}
              </Table.Td>
            </Table.Tr>
          )}
        />
      </div>
    </Stack>
  );
}
