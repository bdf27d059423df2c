import { Table, type TableProps } from '@mantine/core';

/** HTTP headers as sent or received, name beside value, in order (a name may repeat). */
export function HeadersTable({ headers, nameWidth, ...table }: { headers: readonly (readonly [string, string])[]; nameWidth: number } & TableProps) {
  return (
    <Table {...table}>
      <Table.Tbody>
        {headers.map(([name, value], index) => (
          <Table.Tr key={`${name}-${index}`}>
            <Table.Td ff="monospace" w={nameWidth}>
              {name}
            </Table.Td>
            <Table.Td ff="monospace" style={{ wordBreak: 'break-all' }}>
              {value}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
