// The first screen's data is asked for as soon as the bundle runs, before React renders the
// frame: main computes the page while the renderer builds the shell, so the rows can be drawn as
// soon as the shell is up instead of one round trip after it. The screen then finds its query
// already loading (the store's show() does not ask twice).
import { filtersFromParams, filtersToQuery } from '../features/transactions/list-query';
import type { PayinsListStore } from '../features/transactions/transaction-list-store';
import type { Route } from './use-route';

export function prefetchScreen(stores: { payinsList: PayinsListStore }, route: Route): void {
  if (route.screen === 'payins' && route.id === null) void stores.payinsList.getState().show(filtersToQuery(filtersFromParams(route.params)));
}
