// Who is signed in, in the header: the person and their role, and how to sign out (a team server's
// page), or the team server a desk works on and how to leave it.
import { Badge, Button, Group, Text } from '@mantine/core';
import { ROLE_LABELS } from '../../shared/contract/roles';
import { CSRF_HEADER } from '../../shared/web-stream';
import { useApp, useStores } from '../stores/context';

export function PersonMenu() {
  const team = useApp((state) => state.team);
  const { api } = useStores();
  const person = team?.person;
  if (!team || !person) return null;
  const signOut = async () => {
    if (team.mode === 'server') await fetch('/auth/logout', { method: 'POST', headers: { 'content-type': 'application/json', [CSRF_HEADER]: '1' }, body: '{}' });
    else await api.invoke('team:disconnect');
    window.location.reload();
  };
  return (
    <Group gap="xs" data-testid="signed-in">
      <Text size="sm" fw={600} data-testid="signed-in-person">
        {person.displayName}
      </Text>
      <Badge variant="light" data-testid="signed-in-role">
        {ROLE_LABELS[person.role]}
      </Badge>
      <Button size="compact-sm" variant="default" onClick={() => void signOut()}>
        {team.mode === 'server' ? 'Sign out' : 'Leave team server'}
      </Button>
    </Group>
  );
}
