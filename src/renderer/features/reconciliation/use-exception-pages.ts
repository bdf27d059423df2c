// One exception list, read in keyset pages as the user scrolls (never the whole list at once).
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ExceptionKind, ExceptionRow } from '../../../shared/contract';
import { useApi } from '../../stores/context';

const PAGE = 200;

interface Pages {
  items: ExceptionRow[];
  nextCursor: string | null;
  total: number | null;
  loading: boolean;
  error: string | null;
}

export function useExceptionPages(kind: ExceptionKind, scope: { profileId?: string; pendingOlderThanMinutes: number }, enabled: boolean, refreshKey: number) {
  const api = useApi();
  const [pages, setPages] = useState<Pages>({ items: [], nextCursor: null, total: null, loading: enabled, error: null });
  // Each first-page load starts a new generation: pages of an older one are dropped when they land.
  const generation = useRef(0);
  const scopeKey = JSON.stringify(scope);

  const fetchPage = useCallback(
    async (cursor: string | null, mine: number) => {
      setPages((p) => ({ ...p, loading: true, error: null }));
      try {
        const page = await api.invoke('reconciliation:exceptions', { kind, ...(JSON.parse(scopeKey) as typeof scope), cursor, limit: PAGE });
        if (mine !== generation.current) return;
        setPages((p) => ({
          items: cursor === null ? page.items : [...p.items, ...page.items],
          nextCursor: page.nextCursor,
          total: cursor === null ? page.total : p.total,
          loading: false,
          error: null,
        }));
      } catch (error) {
        if (mine === generation.current) setPages((p) => ({ ...p, loading: false, error: (error as Error).message }));
      }
    },
    [api, kind, scopeKey],
  );

  const reload = useCallback(() => {
    const mine = ++generation.current;
    setPages({ items: [], nextCursor: null, total: null, loading: true, error: null });
    void fetchPage(null, mine);
  }, [fetchPage]);

  useEffect(() => {
    if (enabled) reload();
  }, [enabled, reload, refreshKey]);

  const loadMore = useCallback(() => {
    if (pages.nextCursor && !pages.loading) void fetchPage(pages.nextCursor, generation.current);
  }, [fetchPage, pages.nextCursor, pages.loading]);

  return { ...pages, reload, loadMore };
}
