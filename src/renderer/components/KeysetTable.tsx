import { useCallback, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { KeysetListStore } from '../stores/keyset-list';
import { LoadError } from './LoadError';
import { type Column, VirtualTable } from './VirtualTable';

interface KeysetTableProps<Query extends object, Row, Cursor> {
  store: KeysetListStore<Query, Row, Cursor>;
  label: string;
  columns: Column<Row>[];
  rowKey: (row: Row) => string;
  onOpen?: (row: Row) => void;
  /** The title of the error shown when a page cannot be loaded. */
  errorTitle: string;
  empty: ReactNode;
  height: number | string;
  rowHeight?: number;
}

/** A keyset list's rows: virtualised, the next page loaded as the user scrolls, a failed page said with a retry. */
export function KeysetTable<Query extends object, Row, Cursor>({ store, label, columns, rowKey, onOpen, errorTitle, empty, height, rowHeight }: KeysetTableProps<Query, Row, Cursor>) {
  const rows = useStore(store, (state) => state.rows);
  const hasMore = useStore(store, (state) => state.nextCursor !== null);
  const loading = useStore(store, (state) => state.loading);
  const error = useStore(store, (state) => state.error);
  // Stable: VirtualTable calls it from an effect whenever the end is near.
  const loadMore = useCallback(() => void store.getState().loadMore(), [store]);
  const retry = useCallback(() => void store.getState().refresh(), [store]);
  return (
    <>
      {error && <LoadError title={errorTitle} message={error} onRetry={retry} />}
      <VirtualTable label={label} columns={columns} rows={rows} rowKey={rowKey} onOpen={onOpen} onEndReached={loadMore} hasMore={hasMore} loading={loading} height={height} rowHeight={rowHeight} empty={empty} />
    </>
  );
}
