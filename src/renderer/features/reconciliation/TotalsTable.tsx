import { Amount } from '../../components/Amount';
import { type Column, VirtualTable } from '../../components/VirtualTable';
import { StatusBadge } from '../transactions/StatusBadge';
import { type Grouping, subjectLabels, type TotalsGroup } from './totals-groups';

const valueHeader: Record<Grouping, string> = { day: 'Day (UTC)', currency: 'Currency', method: 'Method', status: 'Status' };

const amount = (text: string, currency: string) => <Amount value={text} currency={currency} />;

interface Props {
  groups: TotalsGroup[];
  by: Grouping;
  /** Opens the pay-ins / payouts list filtered on this group; absent when no list filter fits (days). */
  onOpen?: (group: TotalsGroup) => void;
}

/** Exact totals of one grouping: the figures are main's decimal sums, regrouped exactly. */
export function TotalsTable({ groups, by, onOpen }: Props) {
  const columns: Column<TotalsGroup>[] = [
    { key: 'subject', header: 'Transactions', width: 120, render: (g) => subjectLabels[g.subject] },
    ...(by === 'currency'
      ? []
      : [
          {
            key: 'value',
            header: valueHeader[by],
            width: by === 'status' ? 200 : 150,
            render: (g: TotalsGroup) => (by === 'status' ? <StatusBadge subject={g.subject} code={g.value} /> : (g.value ?? '—')),
          },
        ]),
    { key: 'currency', header: 'Currency', width: 100, render: (g) => g.currency },
    { key: 'count', header: 'Count', width: 90, align: 'right', render: (g) => g.count.toLocaleString('en') },
    { key: 'amount', header: 'Amount', width: '1fr', align: 'right', render: (g) => amount(g.amount, g.currency) },
    { key: 'succeeded', header: 'Succeeded', width: 110, align: 'right', render: (g) => g.succeededCount.toLocaleString('en') },
    { key: 'succeededAmount', header: 'Succeeded amount', width: '1fr', align: 'right', render: (g) => amount(g.succeededAmount, g.currency) },
  ];
  return (
    <VirtualTable
      label={`Totals by ${by}`}
      columns={columns}
      rows={groups}
      rowKey={(g) => g.key}
      onOpen={onOpen}
      rowHeight={38}
      height={Math.min(420, Math.max(2, groups.length) * 38 + 2)}
    />
  );
}
