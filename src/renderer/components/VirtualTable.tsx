import { Box, Loader, Table, Text } from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { Fragment, type KeyboardEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import classes from './VirtualTable.module.css';

export interface Column<T> {
  key: string;
  header: string;
  width: number | string;
  render: (row: T) => ReactNode;
  align?: 'left' | 'right';
  /** Its text wraps to read whole instead of being cut: the rows then take the height they need (measured). */
  wrap?: boolean;
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

/** The height of a row whose cells hold two lines (CellLines): a list's row at 1280 px wide. */
export const TWO_LINE_ROW_HEIGHT = 52;

/** The narrowest a column gets: its fixed width, or the minimum of `minmax(<n>px, …)`; 0 for other tracks. */
function minimumWidth(width: number | string): number {
  if (typeof width === 'number') return width;
  return Number(/^minmax\((\d+)px,/.exec(width)?.[1] ?? 0);
}

/** A header that may break where its words meet: a spec name such as merchantReference or request_id wraps there rather than run into the next column. */
function breakable(header: string): ReactNode {
  const parts = header.split(/(?<=[a-z])(?=[A-Z])|(?<=_)/);
  return parts.map((part, i) => (
    <Fragment key={i}>
      {i > 0 && <wbr />}
      {part}
    </Fragment>
  ));
}

/**
 * A table that renders only the rows in view, so a million-row ledger scrolls like ten rows.
 * Keyboard: arrows move the selection, Enter opens it. Narrower than its columns' minimum widths,
 * it scrolls sideways, its header with it; a header too long for its column wraps where its words
 * meet, and what still does not fit is cut with its full text on hover, never drawn over the next.
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
  const headerRef = useRef<HTMLDivElement>(null);
  const [selected, setSelected] = useState(0);
  // Five rows (200 px) beyond each edge keep scrolling smooth; every extra row is rendered before
  // the first page shows (12 were a second screenful on a laptop).
  // Until the scroll box is measured (a layout effect, after the first render), the window's height
  // stands in for its own: the first page's rows are drawn in the first render, not one render and
  // one forced layout later.
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 5,
    initialRect: { width: 0, height: window.innerHeight },
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items.at(-1)?.index ?? -1;

  useEffect(() => {
    if (hasMore && !loading && lastIndex >= rows.length - 20) onEndReached?.();
  }, [lastIndex, rows.length, hasMore, loading, onEndReached]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    // Keys pressed on a control inside a row (a copy button) are that control's.
    if (rows.length === 0 || event.target !== event.currentTarget) return;
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
  // Rows and header are as wide as the columns need at least, so a cell's grid track never sits past its row's background.
  const minWidth = columns.reduce((sum, column) => sum + minimumWidth(column.width), 0);
  const cellClass = (column: Column<T>) => [classes.cell, column.align === 'right' ? classes.right : '', column.wrap ? classes.wrap : ''].filter(Boolean).join(' ');
  // A row whose text wraps is as high as it needs: measured once drawn, at least rowHeight.
  const measured = columns.some((column) => column.wrap);
  // The header row is row 1: aria-rowcount and aria-rowindex count it, as ARIA's table model does.
  return (
    <Box>
      <Table component="div" role="table" aria-label={label} aria-rowcount={rows.length + 1} style={{ display: 'block' }}>
        {/* Scrolled sideways with the rows (below); the same scrollbar gutter keeps its columns over theirs. */}
        <div role="rowgroup" ref={headerRef} className={classes.headerGroup}>
          <div role="row" aria-rowindex={1} className={classes.header} style={{ gridTemplateColumns: template, minWidth }}>
            {columns.map((column) => (
              <div role="columnheader" key={column.key} className={column.align === 'right' ? `${classes.columnheader} ${classes.right}` : classes.columnheader} title={column.header}>
                {breakable(column.header)}
              </div>
            ))}
          </div>
        </div>
        <div
          ref={scrollRef}
          tabIndex={0}
          onKeyDown={onKeyDown}
          onScroll={(event) => {
            if (headerRef.current) headerRef.current.scrollLeft = event.currentTarget.scrollLeft;
          }}
          role="rowgroup"
          className={classes.scroller}
          style={{ height }}
        >
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative', minWidth }}>
            {items.map((item) => {
              const row = rows[item.index] as T;
              return (
                <div
                  key={rowKey(row)}
                  ref={measured ? virtualizer.measureElement : undefined}
                  data-index={item.index}
                  role="row"
                  aria-rowindex={item.index + 2}
                  aria-selected={item.index === selected}
                  data-row-key={rowKey(row)}
                  className={onOpen ? `${classes.row} ${classes.clickable}` : classes.row}
                  onClick={() => {
                    setSelected(item.index);
                    onOpen?.(row);
                  }}
                  style={{ ...(measured ? { minHeight: rowHeight } : { height: rowHeight }), transform: `translateY(${item.start}px)`, gridTemplateColumns: template }}
                >
                  {columns.map((column) => {
                    const content = column.render(row);
                    // Plain text cut at the cell's edge reads whole on hover; richer cells say it themselves.
                    return (
                      <div role="cell" key={column.key} className={cellClass(column)} title={typeof content === 'string' ? content : undefined}>
                        {content}
                      </div>
                    );
                  })}
                </div>
              );
            })}
          </div>
          {/* What stands in for rows is a row too: a table's row group holds rows only. */}
          {rows.length === 0 && !loading && (
            <div role="row">
              <Box role="cell" p="lg">
                {empty ?? <Text c="dimmed">Nothing here yet.</Text>}
              </Box>
            </div>
          )}
          {loading && (
            <div role="row">
              <Box role="cell" p="sm">
                <Loader size="sm" aria-label="Loading rows" />
              </Box>
            </div>
          )}
        </div>
      </Table>
    </Box>
  );
}
