// Settings → Team (admins): the people of the team server with their roles, adding someone,
// changing a role, disabling a person or setting a new password; every open session, to end
// any; and the policy (approvers must use a second factor).
import { Alert, Badge, Button, Card, Group, PasswordInput, Select, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { Dialog } from '../../components/Dialog';
import { useState } from 'react';
import { TEAM_ROLES, type TeamRole, type TeamUser } from '../../../shared/contract';
import { ROLE_DUTIES, ROLE_LABELS } from '../../../shared/contract/roles';
import { DateTime } from '../../components/DateTime';
import { LoadError } from '../../components/LoadError';
import { RowTable } from '../../components/RowTable';
import { TableHead } from '../../components/TableHead';
import { useAction } from '../../components/use-action';
import { useLiveQuery } from '../../components/use-live-query';
import { useScrollTo } from '../../components/use-scroll-to';
import { useApi, useApp } from '../../stores/context';

const roleOptions = TEAM_ROLES.map((role) => ({ value: role, label: `${ROLE_LABELS[role]} — ${ROLE_DUTIES[role]}` }));

/** `focus`: scrolled to (a security notice's link, `#/settings?section=team`). */
export function TeamSection({ focus = false }: { focus?: boolean }) {
  const api = useApi();
  const card = useScrollTo<HTMLDivElement>(focus);
  const me = useApp((state) => state.team?.person);
  const users = useLiveQuery(() => api.invoke('team:list-users'), []);
  const sessions = useLiveQuery(() => api.invoke('team:list-sessions'), []);
  const policy = useApp((state) => state.team?.policy);
  const [adding, setAdding] = useState(false);
  const [resetting, setResetting] = useState<TeamUser | null>(null);
  const action = useAction();
  const reload = () => {
    users.reload();
    sessions.reload();
  };
  const change = async (id: string, patch: { role?: TeamRole; disabled?: boolean }, done: string) => {
    if (await action.run(() => api.invoke('team:update-user', { id, ...patch }), done)) reload();
  };

  return (
    <Card withBorder data-testid="team" ref={card}>
      <Group justify="space-between" mb="xs">
        <Title order={4}>Team</Title>
        <Button size="xs" onClick={() => setAdding(true)}>
          Add a person
        </Button>
      </Group>
      <Text size="sm" c="dimmed" mb="sm">
        Who may use this team server, and what their role lets them do. The server checks every call against the role; a change applies at the person&apos;s next call.
      </Text>
      {action.error && (
        <Alert color="red" mb="sm" role="alert">
          {action.error}
        </Alert>
      )}
      {users.error && <LoadError title="The team could not be read" message={users.error} onRetry={users.reload} />}
      {users.data && (
        <RowTable
          data-testid="team-people"
          headings={['Person', 'Role', 'Second factor', 'Last sign-in', 'Actions']}
          items={users.data.users}
          row={(user) => (
            <Table.Tr key={user.id} data-username={user.username}>
              <Table.Td>
                <Text size="sm" fw={500}>
                  {user.displayName}
                </Text>
                <Text size="xs" c="dimmed">
                  {user.username}
                  {user.disabled ? ' · disabled' : ''}
                </Text>
              </Table.Td>
              <Table.Td>
                <Select
                  aria-label={`Role of ${user.username}`}
                  size="xs"
                  data={TEAM_ROLES.map((role) => ({ value: role, label: ROLE_LABELS[role] }))}
                  value={user.role}
                  allowDeselect={false}
                  onChange={(role) => role && role !== user.role && void change(user.id, { role: role as TeamRole }, `${user.username} is now ${ROLE_LABELS[role as TeamRole]}.`)}
                />
              </Table.Td>
              <Table.Td>{user.totpEnabled ? <Badge color="teal">on</Badge> : <Badge color="gray">off</Badge>}</Table.Td>
              <Table.Td>{user.lastLoginAt ? <DateTime iso={user.lastLoginAt} /> : 'never'}</Table.Td>
              <Table.Td>
                <Group gap={4}>
                  <Button size="compact-xs" variant="default" onClick={() => setResetting(user)}>
                    New password
                  </Button>
                  {user.id !== me?.id && (
                    <Button size="compact-xs" variant="default" color={user.disabled ? undefined : 'red'} onClick={() => void change(user.id, { disabled: !user.disabled }, user.disabled ? `${user.username} may sign in again.` : `${user.username} is disabled and signed out.`)}>
                      {user.disabled ? 'Enable' : 'Disable'}
                    </Button>
                  )}
                </Group>
              </Table.Td>
            </Table.Tr>
          )}
        />
      )}
      <Title order={5} mt="md" mb="xs">
        Open sessions
      </Title>
      {sessions.error && <LoadError title="The sessions could not be read" message={sessions.error} onRetry={sessions.reload} />}
      {sessions.data && <SessionsTable sessions={sessions.data.sessions} onEnded={reload} />}
      {policy && <PolicySwitch approverTotpRequired={policy.approverTotpRequired} />}
      <AddPersonModal opened={adding} onClose={() => setAdding(false)} onAdded={reload} />
      <ResetPasswordModal user={resetting} onClose={() => setResetting(null)} />
    </Card>
  );
}

export function SessionsTable({ sessions, onEnded }: { sessions: { id: string; username: string; client: string; createdAt: string; lastSeenAt: string; current: boolean }[]; onEnded: () => void }) {
  const api = useApi();
  const action = useAction();
  return (
    <>
      {action.error && (
        <Alert color="red" mb="sm" role="alert">
          {action.error}
        </Alert>
      )}
      <Table data-testid="team-sessions">
        <TableHead columns={['Person', 'From', 'Signed in', 'Last seen', 'Action']} />
        <Table.Tbody>
          {sessions.map((session) => (
            <Table.Tr key={session.id} data-session={session.id}>
              <Table.Td>
                {session.username}
                {session.current ? ' (this one)' : ''}
              </Table.Td>
              <Table.Td>{session.client === 'desktop' ? 'Desktop app' : 'Browser'}</Table.Td>
              <Table.Td>
                <DateTime iso={session.createdAt} />
              </Table.Td>
              <Table.Td>
                <DateTime iso={session.lastSeenAt} />
              </Table.Td>
              <Table.Td>
                {!session.current && (
                  <Button size="compact-xs" variant="default" color="red" onClick={() => void action.run(() => api.invoke('team:revoke-session', { id: session.id }), `The session of ${session.username} has ended.`).then((done) => done && onEnded())}>
                    End session
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </>
  );
}

function PolicySwitch({ approverTotpRequired }: { approverTotpRequired: boolean }) {
  const api = useApi();
  const load = useApp((state) => state.load);
  const action = useAction();
  return (
    <Stack gap={4} mt="md">
      <Switch
        label="Approvers must sign in with a second factor (an authenticator app)"
        checked={approverTotpRequired}
        onChange={(event) => {
          const on = event.currentTarget.checked;
          void action.run(() => api.invoke('team:update-policy', { approverTotpRequired: on }), on ? 'Approvers now need a second factor.' : 'Approvers no longer need a second factor.').then(() => load());
        }}
      />
      {action.error && (
        <Text size="sm" c="red" role="alert">
          {action.error}
        </Text>
      )}
    </Stack>
  );
}

function AddPersonModal({ opened, onClose, onAdded }: { opened: boolean; onClose: () => void; onAdded: () => void }) {
  const api = useApi();
  const action = useAction();
  const [form, setForm] = useState({ username: '', displayName: '', role: 'support' as TeamRole, password: '' });
  const submit = async () => {
    const created = await action.run(() => api.invoke('team:create-user', form), `${form.username} can sign in now.`);
    if (created) {
      setForm({ username: '', displayName: '', role: 'support', password: '' });
      onAdded();
      onClose();
    }
  };
  return (
    <Dialog opened={opened} onClose={onClose} title="Add a person">
      <Stack>
        {action.error && (
          <Alert color="red" role="alert">
            {action.error}
          </Alert>
        )}
        <TextInput label="User name" description="What they sign in with: letters, digits, dot, dash." value={form.username} error={action.fieldErrors.username} onChange={(e) => setForm({ ...form, username: e.currentTarget.value })} />
        <TextInput label="Full name" value={form.displayName} error={action.fieldErrors.displayName} onChange={(e) => setForm({ ...form, displayName: e.currentTarget.value })} />
        <Select label="Role" data={roleOptions} value={form.role} allowDeselect={false} onChange={(role) => role && setForm({ ...form, role: role as TeamRole })} />
        <PasswordInput label="First password" description="12 characters or more; they can change it in Settings." value={form.password} error={action.fieldErrors.password} onChange={(e) => setForm({ ...form, password: e.currentTarget.value })} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button loading={action.busy} onClick={() => void submit()}>
            Add
          </Button>
        </Group>
      </Stack>
    </Dialog>
  );
}

function ResetPasswordModal({ user, onClose }: { user: TeamUser | null; onClose: () => void }) {
  const api = useApi();
  const action = useAction();
  const [password, setPassword] = useState('');
  const submit = async () => {
    if (!user) return;
    if (await action.run(() => api.invoke('team:reset-password', { id: user.id, password }), `${user.username} has a new password and was signed out.`)) {
      setPassword('');
      onClose();
    }
  };
  return (
    <Dialog opened={user !== null} onClose={onClose} title={`New password for ${user?.username ?? ''}`}>
      <Stack>
        <Text size="sm">Their sessions end: they sign in again with this password.</Text>
        {action.error && (
          <Alert color="red" role="alert">
            {action.error}
          </Alert>
        )}
        <PasswordInput label="New password" value={password} error={action.fieldErrors.password} onChange={(e) => setPassword(e.currentTarget.value)} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button loading={action.busy} onClick={() => void submit()}>
            Set the password
          </Button>
        </Group>
      </Stack>
    </Dialog>
  );
}
