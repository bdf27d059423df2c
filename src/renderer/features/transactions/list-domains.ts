// What the pay-ins list and the payouts list differ in — names, codes, methods, the reference
// column, the CSV export — so one list component (TransactionList) and one filter bar serve both.
import type { CsvFile, PayinView, PayoutView, TransactionSubject } from '../../../shared/contract';
import { PAYIN_STATUS_CATALOGUE, PAYOUT_STATUS_CATALOGUE } from '../../../shared/spec/codes';
import { METHOD_LABELS, PAYIN_METHODS, PAYOUT_METHODS } from '../../../shared/spec/methods';
import type { ApiClient } from '../../api/client';
import { codeOptions } from '../../components/filter-inputs';
import type { Column } from '../../components/VirtualTable';
import type { ScreenId } from '../../shell/screens';
import { payinColumns, payoutColumns } from './columns';
import type { TransactionQuery } from './list-query';

type Option = { value: string; label: string };

export interface TransactionListDomain<Row extends PayinView | PayoutView = PayinView | PayoutView> {
  subject: TransactionSubject;
  screen: Extract<ScreenId, 'payins' | 'payouts'>;
  /** "Pay-ins": the table's name (and the title, where the list shows one). */
  label: string;
  /** "pay-in", "pay-ins". */
  noun: { one: string; many: string };
  /** Whether the list shows its own title (the payouts screen has one above its tabs). */
  titled: boolean;
  filterLabel: string;
  searchPlaceholder: string;
  statusOptions: Option[];
  methodOptions: Option[];
  /** Whether reason codes can be filtered on (payouts carry C-codes as statuses, not reasons). */
  reasons: boolean;
  columns: Column<Row>[];
  emptyText: string;
  tableHeight: string;
  /** The list's rows as CSV, exactly as filtered and ordered. */
  exportCsv: (api: ApiClient, query: TransactionQuery) => Promise<CsvFile>;
}

export const payinList: TransactionListDomain<PayinView> = {
  subject: 'payin',
  screen: 'payins',
  label: 'Pay-ins',
  noun: { one: 'pay-in', many: 'pay-ins' },
  titled: true,
  filterLabel: 'Pay-in filters',
  searchPlaceholder: 'request_id, payin_id or e-mail (prefix)',
  statusOptions: codeOptions(PAYIN_STATUS_CATALOGUE),
  methodOptions: PAYIN_METHODS.map((m) => ({ value: m, label: METHOD_LABELS[m] })),
  reasons: true,
  columns: payinColumns,
  emptyText: 'No pay-ins yet. Create one in the sandbox playground; it appears here live.',
  tableHeight: 'calc(100vh - 290px)',
  exportCsv: (api, query) => api.invoke('payins:export-csv', query),
};

export const payoutList: TransactionListDomain<PayoutView> = {
  subject: 'payout',
  screen: 'payouts',
  label: 'Payouts',
  noun: { one: 'payout', many: 'payouts' },
  titled: false,
  filterLabel: 'Payout filters',
  searchPlaceholder: 'merchantReference, payout_id or e-mail (prefix)',
  statusOptions: codeOptions(PAYOUT_STATUS_CATALOGUE),
  methodOptions: PAYOUT_METHODS.map((m) => ({ value: m, label: METHOD_LABELS[m] })),
  reasons: false,
  columns: payoutColumns,
  emptyText: 'No payouts yet. Make one with "New payout" or upload a CSV batch; it appears here live.',
  tableHeight: 'calc(100vh - 340px)',
  exportCsv: (api, query) => api.invoke('payouts:export-csv', query),
};
