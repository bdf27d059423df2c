import { Badge, Card, Code, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { ThemeToggle } from '../../shell/ThemeToggle';
import { useApp, useProfiles } from '../../stores/context';
import { CredentialsSection } from './CredentialsSection';
import { ListenerSection } from './ListenerSection';
import { ProfilesSection } from './ProfilesSection';

export function SettingsScreen() {
  const info = useApp((state) => state.info);
  const profiles = useProfiles((state) => state.profiles);
  const loadProfiles = useProfiles((state) => state.load);
  const [selected, setSelected] = useState<string | null>(null);
  useEffect(() => {
    void loadProfiles();
  }, [loadProfiles]);
  if (!info) return <Loader aria-label="Loading settings" />;
  const profile = profiles?.find((candidate) => candidate.id === selected) ?? profiles?.find((candidate) => candidate.isActive);
  return (
    <Stack>
      <Title order={2}>Settings</Title>
      <ProfilesSection selected={profile?.id ?? null} onSelect={setSelected} />
      {profile && <CredentialsSection key={profile.id} profile={profile} />}
      <ListenerSection />
      <Card withBorder>
        <Group justify="space-between">
          <Text fw={500}>Theme</Text>
          <ThemeToggle />
        </Group>
      </Card>
      <Card withBorder>
        <Title order={4} mb="sm">
          This installation
        </Title>
        <Table>
          <Table.Tbody>
            <Table.Tr>
              <Table.Th>Version</Table.Th>
              <Table.Td>{info.version}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Running as</Table.Th>
              <Table.Td data-testid="app-mode">{info.mode === 'web' ? 'Web mode (browser on 127.0.0.1)' : 'Desktop (Electron)'}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Data directory</Table.Th>
              <Table.Td>
                <Code data-testid="data-dir">{info.dataDir}</Code>
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Ledger</Table.Th>
              <Table.Td>
                <Code>{info.ledger.file}</Code> · schema version <span data-testid="schema-version">{info.ledger.schemaVersion}</span>
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Keychain</Table.Th>
              <Table.Td>
                <Badge color={info.keychain.available ? 'teal' : 'orange'} data-testid="keychain-status">
                  {info.keychain.available ? 'available' : 'not available'}
                </Badge>{' '}
                <Text span size="sm" c="dimmed">
                  {info.keychain.message}
                </Text>
              </Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
      </Card>
    </Stack>
  );
}
