import { Alert, Badge, Loader, Radio, ScrollArea, Table, Text } from '@mantine/core';
import { DateTime } from '../../components/DateTime';
import { useEffect, useState } from 'react';
import type { TokenView } from '../../../shared/contract';
import { useApi } from '../../stores/context';
import { errorMessage } from '../../../shared/error-message';

/** The profile's vaulted tokens, newest first, kept live by the tokens push. */
export function useVaultedTokens(profileId: string): { tokens: TokenView[] | null; error: string | null } {
  const api = useApi();
  const [tokens, setTokens] = useState<TokenView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let alive = true;
    setTokens(null);
    api.invoke('tokens:list', { profileId }).then(
      (list) => alive && setTokens((pushed) => merge(list, pushed ?? [])),
      (e: unknown) => alive && setError(errorMessage(e)),
    );
    const off = api.on('tokens:token-changed', (token) => {
      if (token.profileId === profileId) setTokens((current) => merge(current ?? [], [token]));
    });
    return () => {
      alive = false;
      off();
    };
  }, [api, profileId]);
  return { tokens, error };
}

function merge(list: TokenView[], updates: TokenView[]): TokenView[] {
  const byId = new Map(list.map((t) => [t.id, t]));
  for (const token of updates) byId.set(token.id, token);
  return [...byId.values()].sort((a, b) => b.id - a.id);
}

interface VaultedTokensProps {
  tokens: TokenView[] | null;
  error: string | null;
  selected: number | null;
  onSelect: (id: number) => void;
}

/** Brand, first 6 / last 4 and expiry only: the vault keeps nothing more, and neither does Paydesk. */
export function VaultedTokens({ tokens, error, selected, onSelect }: VaultedTokensProps) {
  if (error) return <Alert color="red">{error}</Alert>;
  if (tokens === null) return <Loader size="sm" aria-label="Loading vaulted tokens" />;
  if (tokens.length === 0) return <Text c="dimmed">No vaulted card yet: tokenize one above.</Text>;
  return (
    <ScrollArea.Autosize mah={260} type="auto">
      <Radio.Group value={selected === null ? null : String(selected)} onChange={(value) => onSelect(Number(value))} aria-label="Vaulted tokens">
        <Table striped highlightOnHover data-testid="vaulted-tokens">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={40} />
              <Table.Th>Card</Table.Th>
              <Table.Th>Brand</Table.Th>
              <Table.Th>Expiry</Table.Th>
              <Table.Th>State</Table.Th>
              <Table.Th>Vaulted</Table.Th>
              <Table.Th>request_id</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {tokens.map((token) => (
              <Table.Tr key={token.id} data-token-id={token.id} data-request-id={token.requestId ?? ''}>
                <Table.Td>
                  <Radio value={String(token.id)} disabled={token.state !== 'active'} aria-label={`Use token ${token.maskedPan ?? token.id}`} />
                </Table.Td>
                <Table.Td ff="monospace">{token.maskedPan ?? '—'}</Table.Td>
                <Table.Td>{token.brand ?? '—'}</Table.Td>
                <Table.Td>{token.expMonth && token.expYear ? `${token.expMonth}/${token.expYear}` : '—'}</Table.Td>
                <Table.Td>
                  <Badge size="sm" color={token.state === 'active' ? 'teal' : 'gray'}>
                    {token.state}
                  </Badge>
                </Table.Td>
                <Table.Td><DateTime iso={token.createdAt} /></Table.Td>
                <Table.Td ff="monospace" fz="xs">
                  {token.requestId ?? '—'}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Radio.Group>
    </ScrollArea.Autosize>
  );
}
