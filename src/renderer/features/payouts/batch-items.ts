// A batch's items as its progress view lists them: keyset pages by line, and, while the batch
// moves, the loaded window read again (throttled) so states and payout statuses stay current.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { BatchItemState, BatchItemView } from '../../../shared/contract';
import { useApi } from '../../stores/context';
import { errorMessage } from '../../../shared/error-message';

const PAGE = 500;
/** The window re-read on a change; beyond it the user scrolls for fresh pages anyway. */
const MAX_LIVE_ROWS = 2_000;

export function useBatchItems(batchId: number, states: BatchItemState[] | undefined, version: string) {
  const api = useApi();
  const [items, setItems] = useState<BatchItemView[]>([]);
  const [next, setNext] = useState<number | null>(0);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const sequence = useRef(0);
  const stateKey = states?.join(',') ?? '';

  /** Reads lines 1..upTo (at least one page) afresh. */
  const reload = useCallback(
    async (upTo: number) => {
      const mine = ++sequence.current;
      setLoading(true);
      try {
        const rows: BatchItemView[] = [];
        let after: number | null = 0;
        for (let page = 0; after !== null && page < MAX_LIVE_ROWS / PAGE; page++) {
          const answer: { items: BatchItemView[]; nextAfterLine: number | null } = await api.invoke('batches:items', { id: batchId, ...(states ? { states } : {}), afterLine: after, limit: PAGE });
          rows.push(...answer.items);
          after = answer.nextAfterLine;
          if (rows.length >= Math.max(upTo, 1)) break;
        }
        if (mine !== sequence.current) return;
        setItems(rows);
        setNext(after);
        setError(null);
      } catch (e) {
        if (mine === sequence.current) setError(errorMessage(e));
      } finally {
        if (mine === sequence.current) setLoading(false);
      }
    },
    // stateKey stands for `states`.
    [api, batchId, stateKey],
  );

  const shown = useRef(0);
  shown.current = items.length;
  // A new filter starts from the top; a new version of the batch re-reads what is loaded.
  useEffect(() => void reload(0), [reload]);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => {
    timer.current ??= setTimeout(() => {
      timer.current = null;
      void reload(shown.current);
    }, 700);
  }, [version, reload]);
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);

  const loadMore = useCallback(async () => {
    if (next === null || loading) return;
    setLoading(true);
    try {
      const answer = await api.invoke('batches:items', { id: batchId, ...(states ? { states } : {}), afterLine: next, limit: PAGE });
      setItems((current) => [...current, ...answer.items.filter((i) => i.line > (current.at(-1)?.line ?? 0))]);
      setNext(answer.nextAfterLine);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setLoading(false);
    }
    // stateKey stands for `states`.
  }, [api, batchId, next, loading, stateKey]);

  return { items, hasMore: next !== null, loading, error, loadMore };
}
