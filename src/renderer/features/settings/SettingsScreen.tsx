import { Anchor, Badge, Card, Code, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { ThemeToggle } from '../../shell/ThemeToggle';
import { useApp, useProfiles } from '../../stores/context';
import { ApprovalPoliciesSection } from './ApprovalPoliciesSection';
import { CredentialsSection } from './CredentialsSection';
import { ListenerSection } from './ListenerSection';
import { ProfilesSection } from './ProfilesSection';
import { RetentionSection } from './RetentionSection';
import { SignInSection } from '../team/SignInSection';
import { TeamSection } from '../team/TeamSection';
import { TeamServerSection } from '../team/TeamServerSection';
import { useAccess } from '../../stores/access';
import { CUSTODY_WORDS } from '../../../shared/credential-custody';
import { routeHash } from '../../shell/use-route';

const MODE_LABELS = {
  web: 'Web mode (browser on 127.0.0.1)',
  electron: 'Desktop (Electron)',
  server: 'Team server (browser)',
} as const;

const KEYCHAIN_BADGE = {
  available: { color: 'teal', label: 'available' },
  locked: { color: 'red', label: 'locked' },
  unavailable: { color: 'orange', label: 'not available' },
} as const;

/**
 * `?edit=<profile id>` opens that profile's form (its public URL); `?section=listener` scrolls to the
 * listener; `?section=team` (a security notice's link) to Team, or, for whom it is not shown, to
 * their own sign-in.
 */
export function SettingsScreen({ params = {} }: { params?: Record<string, string> }) {
  const info = useApp((state) => state.info);
  const profiles = useProfiles((state) => state.profiles);
  const loadProfiles = useProfiles((state) => state.load);
  const [selected, setSelected] = useState<string | null>(null);
  const { can } = useAccess();
  const signedIn = useApp((state) => state.team?.person !== null && state.team?.person !== undefined);
  const teamShown = can('team:list-users') && signedIn;
  useEffect(() => {
    void loadProfiles();
  }, [loadProfiles]);
  if (!info) return <Loader aria-label="Loading settings" />;
  const profile = profiles?.find((candidate) => candidate.id === selected) ?? profiles?.find((candidate) => candidate.isActive);
  return (
    <Stack>
      <Title order={2}>Settings</Title>
      {signedIn && <SignInSection focus={params.section === 'team' && !teamShown} />}
      <TeamServerSection />
      {teamShown && <TeamSection focus={params.section === 'team'} />}
      <ProfilesSection selected={profile?.id ?? null} onSelect={setSelected} editId={params.edit ?? null} />
      {profile && can('credentials:set-merchant-token') && <CredentialsSection key={profile.id} profile={profile} />}
      <ApprovalPoliciesSection />
      <ListenerSection focus={params.section === 'listener'} />
      {profile && can('settings:update-notification-retention') && <RetentionSection profile={profile} />}
      <Card withBorder>
        <Group justify="space-between">
          <Text fw={500}>Notices</Text>
          <Anchor href={routeHash('settings', { id: 'notices' })}>Where notices reach you, and when the watches tell</Anchor>
        </Group>
      </Card>
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
              <Table.Td data-testid="app-mode">{MODE_LABELS[info.mode]}</Table.Td>
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
                {info.ledger.engine === 'postgres' ? 'PostgreSQL' : 'SQLite'} <Code data-testid="ledger-location">{info.ledger.location}</Code> · schema version <span data-testid="schema-version">{info.ledger.schemaVersion}</span>
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>{CUSTODY_WORDS[info.keychain.custody].storeLabel}</Table.Th>
              <Table.Td>
                <Badge color={KEYCHAIN_BADGE[info.keychain.state].color} data-testid="keychain-status" data-state={info.keychain.state}>
                  {KEYCHAIN_BADGE[info.keychain.state].label}
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
