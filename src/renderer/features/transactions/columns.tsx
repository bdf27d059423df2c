import type { PayinView, PayoutView } from '../../../shared/contract';
import { methodLabel } from '../../../shared/spec/methods';
import { Amount } from '../../components/Amount';
import { CellLines } from '../../components/CellLines';
import { CopyValue } from '../../components/CopyValue';
import { DATE_TIME_COLUMN_WIDTH, DateTime } from '../../components/DateTime';
import type { Column } from '../../components/VirtualTable';
import { formatMoney } from './format';
import { StatusBadge } from './StatusBadge';
import { VerificationBadge } from './VerificationBadge';

interface ReferenceColumn<Row> {
  /** The spec's name of the merchant's reference: request_id or merchantReference. */
  header: string;
  reference: (row: Row) => string;
}

/**
 * The columns of a transaction list: the same for pay-ins and payouts but for the reference. Each
 * row holds two lines, so that at 1280 px wide its values read whole: the time; the reference over
 * the e-mail; the amount over the method; the status badge over the verification badge. The
 * reference column takes what is left. A value longer than its column (a reference or e-mail past
 * some 45 characters, an amount past some 15 digits) is cut at its end, its full value on hover and,
 * for the reference, in its copy button's name.
 */
function transactionColumns<Row extends PayinView | PayoutView>(subject: 'payin' | 'payout', ref: ReferenceColumn<Row>): Column<Row>[] {
  return [
    { key: 'created', header: 'Created', width: DATE_TIME_COLUMN_WIDTH, render: (r) => <DateTime iso={r.createdAt} /> },
    {
      key: 'reference',
      header: `${ref.header} / e-mail`,
      width: 'minmax(220px, 1fr)',
      render: (r) => <CellLines first={<CopyValue value={ref.reference(r)} label={ref.header} truncate />} second={r.email} />,
    },
    {
      key: 'amount',
      header: 'Amount / method',
      width: 200,
      align: 'right',
      render: (r) => <CellLines first={<Amount value={r.amount} currency={r.currency} />} firstTitle={formatMoney(r.amount, r.currency)} second={methodLabel(r.method)} />,
    },
    {
      key: 'status',
      header: 'Status / verification',
      width: 190,
      render: (r) => <CellLines first={<StatusBadge subject={subject} code={r.statusCode} attemptState={r.attempt?.state} />} second={<VerificationBadge transaction={r} />} />,
    },
  ];
}

export const payinColumns = transactionColumns<PayinView>('payin', { header: 'request_id', reference: (p) => p.requestId });
export const payoutColumns = transactionColumns<PayoutView>('payout', { header: 'merchantReference', reference: (p) => p.merchantReference });
