import { Badge, Button, Card, Group, Loader, Radio, Table, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { ProfileView } from '../../../shared/contract';
import { CopyValue } from '../../components/CopyValue';
import { navigate } from '../../shell/use-route';
import { ENVIRONMENT_COLOR } from '../../components/environment-color';
import { useAction } from '../../components/use-action';
import { useApi, useProfiles } from '../../stores/context';
import { ProfileFormModal } from './ProfileFormModal';
import { useAccess } from '../../stores/access';

/** `editId`: a profile whose form opens at once (a "Set the public URL" link elsewhere led here). */
export function ProfilesSection({ selected, onSelect, editId }: { selected: string | null; onSelect: (id: string) => void; editId: string | null }) {
  const api = useApi();
  const profiles = useProfiles((state) => state.profiles);
  const action = useAction();
  const { can, why } = useAccess();
  const [editing, setEditing] = useState<ProfileView | 'new' | null>(null);
  useEffect(() => {
    const asked = editId === null ? undefined : profiles?.find((p) => p.id === editId);
    if (asked) setEditing(asked);
  }, [editId, profiles]);
  const close = () => {
    setEditing(null);
    if (editId !== null) navigate('settings');
  };

  if (!profiles) return <Loader aria-label="Loading profiles" />;
  const mayEdit = can('profiles:update');
  return (
    <Card withBorder>
      <Group justify="space-between" mb="sm">
        <Title order={4}>Profiles</Title>
        {mayEdit && (
          <Button size="xs" onClick={() => setEditing('new')}>
            New profile
          </Button>
        )}
      </Group>
      {!mayEdit && (
        <Text size="sm" c="dimmed" mb="xs" data-testid="profiles-read-only">
          {why('profiles:update')} Choose which profile you work on with the Active column.
        </Text>
      )}
      <Table aria-label="Profiles" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Active</Table.Th>
            <Table.Th>Name</Table.Th>
            <Table.Th>Environment</Table.Th>
            <Table.Th>Gateway</Table.Th>
            <Table.Th>Notification URL</Table.Th>
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {profiles.map((profile) => (
            <Table.Tr key={profile.id} data-profile={profile.name} bg={profile.id === selected ? 'var(--mantine-color-default-hover)' : undefined}>
              <Table.Td>
                <Radio
                  aria-label={`Activate ${profile.name}`}
                  checked={profile.isActive}
                  onChange={() => void action.run(() => api.invoke('profiles:activate', { id: profile.id }), `${profile.name} is now active`)}
                />
              </Table.Td>
              <Table.Td>
                <Text fw={500}>{profile.name}</Text>
                <Text size="xs" c="dimmed">
                  {profile.merchantId} · site {profile.merchantSiteId}
                </Text>
              </Table.Td>
              <Table.Td>
                <Badge color={ENVIRONMENT_COLOR[profile.environment]} variant={profile.environment === 'live' ? 'filled' : 'light'}>
                  {profile.environment}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Text size="sm" ff="monospace">
                  {profile.baseUrl}
                </Text>
              </Table.Td>
              <Table.Td maw={260}>
                <CopyValue value={profile.notificationUrl} label="notification URL" truncate />
                {!profile.notifications.reachable && (
                  <Badge size="xs" color="orange" variant="light" title={profile.notifications.warning ?? undefined} data-testid="profile-unreachable">
                    gateway cannot reach it
                  </Badge>
                )}
              </Table.Td>
              <Table.Td>
                <Group gap="xs" wrap="nowrap">
                  {mayEdit && (
                    <>
                      <Button size="xs" variant="light" onClick={() => onSelect(profile.id)}>
                        Credentials
                      </Button>
                      <Button size="xs" variant="default" onClick={() => setEditing(profile)}>
                        Edit
                      </Button>
                      <Button
                        size="xs"
                        color="red"
                        variant="subtle"
                        disabled={profile.isActive}
                        onClick={() => {
                          if (window.confirm(`Delete profile "${profile.name}"? Its keychain entries are removed too.`)) {
                            void action.run(() => api.invoke('profiles:delete', { id: profile.id }), 'Profile deleted');
                          }
                        }}
                      >
                        Delete
                      </Button>
                    </>
                  )}
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {action.error && (
        <Text c="red" size="sm" role="alert" mt="sm">
          {action.error}
        </Text>
      )}
      <ProfileFormModal opened={editing !== null} onClose={close} editing={editing === 'new' || editing === null ? null : editing} focusPublicUrl={editing !== null && editing !== 'new' && editing.id === editId} />
    </Card>
  );
}
