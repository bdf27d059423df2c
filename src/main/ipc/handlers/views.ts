import type { viewsContract } from '../../../shared/contract';
import { PAYINS_CSV, PAYOUTS_CSV, type TransactionsCsvExport } from '../../services/ledger-views/transactions-csv';
import type { SavedViewsService } from '../../services/saved-views/saved-views-service';
import type { Handlers } from '../dispatcher';

export function viewsHandlers({ savedViews, transactionsCsv }: { savedViews: SavedViewsService; transactionsCsv: TransactionsCsvExport }): Pick<Handlers, keyof typeof viewsContract.invoke> {
  return {
    'views:list': ({ subject }) => savedViews.list(subject),
    'views:save': ({ subject, name, filters }) => savedViews.save(subject, name, filters),
    'views:delete': ({ subject, name }) => savedViews.delete(subject, name),
    'payins:export-csv': (filters) => transactionsCsv.export(PAYINS_CSV, filters),
    'payouts:export-csv': (filters) => transactionsCsv.export(PAYOUTS_CSV, filters),
  };
}
