import { Badge, Button, Card, Group, Loader, Radio, Table, Text, Title, Tooltip, VisuallyHidden } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { ProfileView } from '../../../shared/contract';
import { CopyValue } from '../../components/CopyValue';
import { navigate } from '../../shell/use-route';
import { ENVIRONMENT_COLOR } from '../../components/environment-color';
import { useAction } from '../../components/use-action';
import { useApi, useProfiles } from '../../stores/context';
import { ProfileFormModal } from './ProfileFormModal';
import { DeleteProfileDialog } from './DeleteProfileDialog';
import { LiveSwitchDialog } from './LiveSwitchDialog';
import { useAccess } from '../../stores/access';

const ACTIVE_NOT_DELETABLE = 'The active profile cannot be deleted: activate another profile first.';
/** A row's buttons keep their width: the columns before them give way instead. */
const KEEP_WIDTH = { flexShrink: 0 } as const;

/**
 * The profiles: which one is active (the switcher: a live one only after a confirmation that names
 * it live), each one's gateway and notification URL, and, for who may change them, their
 * credentials, form and deletion. Archived profiles are listed apart, to be restored. The table
 * fits its card at 1280 px: the gateway address wraps, the notification URL is cut (whole in its
 * title and copy button), and the actions stay in view beside the profile they act on.
 *
 * `editId`: a profile whose form opens at once (a "Set the public URL" link elsewhere led here).
 */
export function ProfilesSection({ selected, onSelect, editId }: { selected: string | null; onSelect: (id: string) => void; editId: string | null }) {
  const api = useApi();
  const profiles = useProfiles((state) => state.profiles);
  const action = useAction();
  const { can, why } = useAccess();
  const [editing, setEditing] = useState<ProfileView | 'new' | null>(null);
  const [deleting, setDeleting] = useState<{ profile: ProfileView | null; opened: boolean }>({ profile: null, opened: false });
  const [switching, setSwitching] = useState<{ profile: ProfileView | null; opened: boolean }>({ profile: null, opened: false });
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
  const inUse = profiles.filter((profile) => profile.archivedAt === null);
  const archived = profiles.filter((profile) => profile.archivedAt !== null);
  const activate = (profile: ProfileView) => {
    if (profile.environment === 'live') setSwitching({ profile, opened: true });
    else void action.run(() => api.invoke('profiles:activate', { id: profile.id }), `${profile.name} is now active`);
  };
  const askDelete = (profile: ProfileView) => setDeleting({ profile, opened: true });

  return (
    <Card withBorder data-testid="profiles">
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
      <Table aria-label="Profiles" highlightOnHover layout="fixed">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={64}>Active</Table.Th>
            <Table.Th>Name</Table.Th>
            <Table.Th>Gateway</Table.Th>
            <Table.Th>Notification URL</Table.Th>
            {mayEdit && (
              <Table.Th w={284}>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            )}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {inUse.map((profile) => (
            <Table.Tr key={profile.id} data-profile={profile.name} bg={profile.id === selected ? 'var(--mantine-color-default-hover)' : undefined}>
              <Table.Td>
                <Radio aria-label={`Activate ${profile.name}`} checked={profile.isActive} onChange={() => activate(profile)} />
              </Table.Td>
              <NameCell profile={profile} />
              <Table.Td>
                <GatewayAddress url={profile.baseUrl} />
              </Table.Td>
              <NotificationCell profile={profile} />
              {mayEdit && (
                <Table.Td>
                  <Group gap={6} wrap="nowrap">
                    <Button size="xs" variant="light" onClick={() => onSelect(profile.id)} style={KEEP_WIDTH}>
                      Credentials
                    </Button>
                    <Button size="xs" variant="default" onClick={() => setEditing(profile)} style={KEEP_WIDTH}>
                      Edit
                    </Button>
                    {profile.isActive ? <ActiveDeleteButton profile={profile} /> : <DeleteButton onClick={() => askDelete(profile)} />}
                  </Group>
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {archived.length > 0 && <ArchivedProfiles profiles={archived} mayEdit={mayEdit} onDelete={askDelete} />}
      {action.error && (
        <Text c="red" size="sm" role="alert" mt="sm">
          {action.error}
        </Text>
      )}
      <ProfileFormModal opened={editing !== null} onClose={close} editing={editing === 'new' || editing === null ? null : editing} focusPublicUrl={editing !== null && editing !== 'new' && editing.id === editId} />
      <DeleteProfileDialog opened={deleting.opened} profile={deleting.profile} onClose={() => setDeleting((current) => ({ ...current, opened: false }))} />
      <LiveSwitchDialog opened={switching.opened} profile={switching.profile} current={inUse.find((p) => p.isActive)} onClose={() => setSwitching((current) => ({ ...current, opened: false }))} />
    </Card>
  );
}

function NameCell({ profile }: { profile: ProfileView }) {
  return (
    <Table.Td>
      <Group gap={6} wrap="wrap">
        <Text fw={500} style={{ overflowWrap: 'anywhere' }}>
          {profile.name}
        </Text>
        <Badge size="sm" color={ENVIRONMENT_COLOR[profile.environment]} variant={profile.environment === 'live' ? 'filled' : 'light'}>
          {profile.environment}
        </Badge>
      </Group>
      <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
        {profile.merchantId} · site {profile.merchantSiteId}
      </Text>
    </Table.Td>
  );
}

/** An address that wraps where it reads best (after a slash, a dot or a hyphen), not in the middle of a word. */
function GatewayAddress({ url }: { url: string }) {
  const parts = url.split(/(?<=[/.-])/);
  return (
    <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
      {parts.map((part, i) => (
        <span key={i}>
          {i > 0 && <wbr />}
          {part}
        </span>
      ))}
    </Text>
  );
}

function NotificationCell({ profile }: { profile: ProfileView }) {
  return (
    <Table.Td>
      <CopyValue value={profile.notificationUrl} label="notification URL" truncate />
      {!profile.notifications.reachable && (
        <Badge size="xs" color="orange" variant="light" title={profile.notifications.warning ?? undefined} data-testid="profile-unreachable">
          gateway cannot reach it
        </Badge>
      )}
    </Table.Td>
  );
}

function DeleteButton({ onClick }: { onClick: () => void }) {
  return (
    <Button size="xs" color="red" variant="subtle" onClick={onClick} style={KEEP_WIDTH}>
      Delete
    </Button>
  );
}

/**
 * The active profile's Delete: shown disabled, and still reachable by keyboard and pointer so it can
 * say why (a disabled button takes no focus and no hover): the reason is its description and,
 * on focus or hover, a tooltip.
 */
function ActiveDeleteButton({ profile }: { profile: ProfileView }) {
  const reasonId = `delete-reason-${profile.id}`;
  return (
    <>
      <Tooltip label={ACTIVE_NOT_DELETABLE} events={{ hover: true, focus: true, touch: true }} multiline w={240}>
        <Button size="xs" color="red" variant="subtle" data-disabled aria-disabled="true" aria-describedby={reasonId} onClick={(event) => event.preventDefault()} style={KEEP_WIDTH}>
          Delete
        </Button>
      </Tooltip>
      <VisuallyHidden id={reasonId}>{ACTIVE_NOT_DELETABLE}</VisuallyHidden>
    </>
  );
}

function ArchivedProfiles({ profiles, mayEdit, onDelete }: { profiles: ProfileView[]; mayEdit: boolean; onDelete: (profile: ProfileView) => void }) {
  const api = useApi();
  const action = useAction();
  return (
    <>
      <Title order={5} mt="md" mb={4}>
        Archived profiles
      </Title>
      <Text size="sm" c="dimmed" mb="xs">
        Hidden from the Active column and the pickers; their transactions stay visible and filterable.
      </Text>
      <Table aria-label="Archived profiles" layout="fixed">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Gateway</Table.Th>
            <Table.Th w={140}>Archived</Table.Th>
            {mayEdit && (
              <Table.Th w={184}>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            )}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {profiles.map((profile) => (
            <Table.Tr key={profile.id} data-profile={profile.name}>
              <NameCell profile={profile} />
              <Table.Td>
                <GatewayAddress url={profile.baseUrl} />
              </Table.Td>
              <Table.Td>
                <Text size="sm">{profile.archivedAt?.slice(0, 10)}</Text>
              </Table.Td>
              {mayEdit && (
                <Table.Td>
                  <Group gap={6} wrap="nowrap">
                    <Button size="xs" variant="light" loading={action.busy} style={KEEP_WIDTH} onClick={() => void action.run(() => api.invoke('profiles:restore', { id: profile.id }), `Profile “${profile.name}” restored`)}>
                      Restore
                    </Button>
                    <DeleteButton onClick={() => onDelete(profile)} />
                  </Group>
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {action.error && (
        <Text c="red" size="sm" role="alert" mt="sm">
          {action.error}
        </Text>
      )}
    </>
  );
}
