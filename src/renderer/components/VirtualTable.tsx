import { Box, Loader, Table, Text } from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { type KeyboardEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import classes from './VirtualTable.module.css';

export interface Column<T> {
  key: string;
  header: string;
  width: number | string;
  render: (row: T) => ReactNode;
  align?: 'left' | 'right';
}

export interface VirtualTableProps<T> {
  label: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  onOpen?: (row: T) => void;
  /** Called when the user scrolls near the end: load the next keyset page. */
  onEndReached?: () => void;
  hasMore?: boolean;
  loading?: boolean;
  empty?: ReactNode;
  height?: number | string;
  rowHeight?: number;
}

/**
 * A table that renders only the rows in view, so a million-row ledger scrolls like ten rows.
 * Keyboard: arrows move the selection, Enter opens it.
 */
export function VirtualTable<T>({
  label,
  columns,
  rows,
  rowKey,
  onOpen,
  onEndReached,
  hasMore = false,
  loading = false,
  empty,
  height = 'calc(100vh - 260px)',
  rowHeight = 40,
}: VirtualTableProps<T>) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const [selected, setSelected] = useState(0);
  // Five rows (200 px) beyond each edge keep scrolling smooth; every extra row is rendered before
  // the first page shows (12 were a second screenful on a laptop).
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scrollRef.current, estimateSize: () => rowHeight, overscan: 5 });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items.at(-1)?.index ?? -1;

  useEffect(() => {
    if (hasMore && !loading && lastIndex >= rows.length - 20) onEndReached?.();
  }, [lastIndex, rows.length, hasMore, loading, onEndReached]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (rows.length === 0) return;
    const move = (next: number) => {
      const index = Math.max(0, Math.min(rows.length - 1, next));
      setSelected(index);
      virtualizer.scrollToIndex(index, { align: 'auto' });
      event.preventDefault();
    };
    if (event.key === 'ArrowDown') move(selected + 1);
    else if (event.key === 'ArrowUp') move(selected - 1);
    else if (event.key === 'PageDown') move(selected + 20);
    else if (event.key === 'PageUp') move(selected - 20);
    else if (event.key === 'Enter' && rows[selected]) onOpen?.(rows[selected]);
  };

  const template = columns.map((column) => (typeof column.width === 'number' ? `${column.width}px` : column.width)).join(' ');
  return (
    <Box>
      <Table component="div" role="table" aria-label={label} aria-rowcount={rows.length} style={{ display: 'block' }}>
        <Box role="rowgroup" style={{ display: 'grid', gridTemplateColumns: template, borderBottom: '1px solid var(--mantine-color-default-border)' }}>
          {columns.map((column) => (
            <Box role="columnheader" key={column.key} px="xs" py={6} fw={600} fz="sm" ta={column.align ?? 'left'}>
              {column.header}
            </Box>
          ))}
        </Box>
        <div ref={scrollRef} tabIndex={0} onKeyDown={onKeyDown} role="rowgroup" style={{ height, overflow: 'auto', outline: 'none' }}>
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {items.map((item) => {
              const row = rows[item.index] as T;
              return (
                <div
                  key={rowKey(row)}
                  role="row"
                  aria-rowindex={item.index + 1}
                  aria-selected={item.index === selected}
                  data-row-key={rowKey(row)}
                  className={onOpen ? `${classes.row} ${classes.clickable}` : classes.row}
                  onClick={() => {
                    setSelected(item.index);
                    onOpen?.(row);
                  }}
                  style={{ height: rowHeight, transform: `translateY(${item.start}px)`, gridTemplateColumns: template }}
                >
                  {columns.map((column) => (
                    <div role="cell" key={column.key} className={column.align === 'right' ? `${classes.cell} ${classes.right}` : classes.cell}>
                      {column.render(row)}
                    </div>
                  ))}
                </div>
              );
            })}
          </div>
          {rows.length === 0 && !loading && (
            <Box p="lg">{empty ?? <Text c="dimmed">Nothing here yet.</Text>}</Box>
          )}
          {loading && (
            <Box p="sm">
              <Loader size="sm" aria-label="Loading rows" />
            </Box>
          )}
        </div>
      </Table>
    </Box>
  );
}
