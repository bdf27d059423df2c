import { Table, type TableThProps } from '@mantine/core';

/** A column's heading: its text, or its text with the heading cell's props (alignment, width). */
export type Heading = string | (TableThProps & { label: string });

/** A table's header row: one cell per column, in order. */
export function TableHead({ columns }: { columns: readonly Heading[] }) {
  return (
    <Table.Thead>
      <Table.Tr>
        {columns.map((column, i) => {
          const { label, ...cell } = typeof column === 'string' ? { label: column } : column;
          return (
            <Table.Th key={`${i}:${label}`} {...cell}>
              {label}
            </Table.Th>
          );
        })}
      </Table.Tr>
    </Table.Thead>
  );
}
