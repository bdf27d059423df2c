import { Alert } from '@mantine/core';
import { useStores } from '../../stores/context';
import { payinList } from '../transactions/list-domains';
import { TransactionDetail } from '../transactions/TransactionDetail';
import { TransactionList } from '../transactions/TransactionList';

/** `#/payins[?filters]` is the list; `#/payins/<id>` one pay-in's detail. */
export function PayinsScreen({ id, params }: { id: string | null; params: Record<string, string> }) {
  const store = useStores().payinsList;
  if (id === null) return <TransactionList domain={payinList} store={store} params={params} />;
  const rowId = Number(id);
  if (!Number.isSafeInteger(rowId) || rowId <= 0) {
    return (
      <Alert color="yellow" title="No such pay-in">
        "{id}" is not a pay-in id. Use the search (Ctrl+K) to find a pay-in by reference.
      </Alert>
    );
  }
  return <TransactionDetail key={rowId} subject="payin" id={rowId} />;
}
