import { Table, type TableProps } from '@mantine/core';
import type { ReactNode } from 'react';
import { TableHead, type Heading } from './TableHead';

/** A table of one row per item: its headings, then what `row` draws for each item (a keyed Table.Tr). */
export function RowTable<T>({ headings, items, row, ...table }: TableProps & { headings: readonly Heading[]; items: readonly T[]; row: (item: T) => ReactNode }) {
  return (
    <Table {...table}>
      <TableHead columns={headings} />
      <Table.Tbody>{items.map((item) => row(item))}</Table.Tbody>
    </Table>
  );
}
