// Adapters for saved list views and the pay-ins CSV export.
import type { Repositories } from '../ledger/repositories/index';
import type { Clock } from '../ledger/support';
import { exportPayinsCsv } from '../services/ledger-views/payins-csv';
import type { SavedViewsService } from '../services/saved-views/saved-views-service';
import type { Handlers } from './dispatcher';

type ViewChannels = 'views:list' | 'views:save' | 'views:delete' | 'payins:export-csv';

export function viewHandlers({ savedViews, repos, now }: { savedViews: SavedViewsService; repos: Repositories; now: Clock }): Pick<Handlers, ViewChannels> {
  return {
    'views:list': ({ subject }) => ({ views: savedViews.list(subject) }),
    'views:save': ({ subject, name, filters }) => ({ views: savedViews.save(subject, name, filters) }),
    'views:delete': ({ subject, name }) => ({ views: savedViews.delete(subject, name) }),
    'payins:export-csv': (filters) => exportPayinsCsv({ repos, now }, filters),
  };
}
