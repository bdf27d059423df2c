// One exception list, read in keyset pages as the user scrolls (never the whole list at once): a
// keyset list store for as long as its tab is open, its total from the first page.
import { useEffect, useState } from 'react';
import type { ExceptionKind, ExceptionRow, ExceptionScope } from '../../../shared/contract';
import { createKeysetListStore, queryKey } from '../../stores/keyset-list';
import { useApi } from '../../stores/context';

const PAGE = 200;

export interface ExceptionQuery extends ExceptionScope {
  kind: ExceptionKind;
}

export function useExceptionList(kind: ExceptionKind, scope: ExceptionScope, enabled: boolean, refreshKey: number) {
  const api = useApi();
  const [store] = useState(() =>
    createKeysetListStore<ExceptionQuery, ExceptionRow>({
      list: async (query, cursor) => {
        const page = await api.invoke('reconciliation:exceptions', { ...query, cursor, limit: PAGE });
        return { items: page.items, next: page.nextCursor, total: page.total };
      },
      // No live rows: the screen reloads a list when the ledger changed (a sweep ended, Refresh).
      matches: () => true,
      key: (row) => row.key,
      compare: (_query, a, b) => (a.at === b.at ? 0 : a.at < b.at ? 1 : -1),
    }),
  );
  useEffect(() => () => store.dispose(), [store]);

  const { profileId, pendingOlderThanMinutes, from, to } = scope;
  useEffect(() => {
    if (!enabled) return;
    const query: ExceptionQuery = { kind, ...(profileId === undefined ? {} : { profileId }), ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }), pendingOlderThanMinutes };
    // A new scope loads its first page; the same one again (refreshKey bumped) reloads it.
    const state = store.getState();
    void (state.key === queryKey(query) ? state.refresh() : state.show(query));
  }, [store, enabled, kind, profileId, pendingOlderThanMinutes, from, to, refreshKey]);

  return store;
}
