import type { PayinView, PayoutView } from '../../../shared/contract';
import { methodLabel } from '../../../shared/spec/methods';
import { Amount } from '../../components/Amount';
import { CopyValue } from '../../components/CopyValue';
import { DateTime } from '../../components/DateTime';
import type { Column } from '../../components/VirtualTable';
import { StatusBadge } from './StatusBadge';
import { VerificationBadge } from './VerificationBadge';

interface ReferenceColumn<Row> {
  /** The spec's name of the merchant's reference: request_id or merchantReference. */
  header: string;
  reference: (row: Row) => string;
}

/**
 * The columns of a transaction list: the same for pay-ins and payouts but for the reference. Sized
 * so that at 1280 px wide the time, method, amount, status and verification badge (the longest,
 * "notified, unverified") read whole; the reference and e-mail take what is left, the reference cut
 * at the end with its full value on hover and in its copy button's name.
 */
function transactionColumns<Row extends PayinView | PayoutView>(subject: 'payin' | 'payout', ref: ReferenceColumn<Row>): Column<Row>[] {
  return [
    { key: 'created', header: 'Created', width: 180, render: (r) => <DateTime iso={r.createdAt} /> },
    { key: 'reference', header: ref.header, width: 'minmax(120px, 1.6fr)', render: (r) => <CopyValue value={ref.reference(r)} label={ref.header} truncate /> },
    { key: 'email', header: 'E-mail', width: 'minmax(60px, 1fr)', render: (r) => r.email },
    { key: 'method', header: 'Method', width: 120, render: (r) => methodLabel(r.method) },
    { key: 'amount', header: 'Amount', width: 200, align: 'right', render: (r) => <Amount value={r.amount} currency={r.currency} /> },
    { key: 'status', header: 'Status', width: 140, render: (r) => <StatusBadge subject={subject} code={r.statusCode} attemptState={r.attempt?.state} /> },
    { key: 'verification', header: 'Notified / verified', width: 175, render: (r) => <VerificationBadge transaction={r} /> },
  ];
}

export const payinColumns = transactionColumns<PayinView>('payin', { header: 'request_id', reference: (p) => p.requestId });
export const payoutColumns = transactionColumns<PayoutView>('payout', { header: 'merchantReference', reference: (p) => p.merchantReference });
