// Settings → Team server (a desk): sign in to the team's server so this desk works on the team's
// ledger, as a person with a role; or leave it and work on this desk's own ledger again. The
// session is kept in the OS keychain; the password is not kept anywhere.
import { Alert, Button, Card, Group, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useEffect, useState } from 'react';
import { useAction } from '../../components/use-action';
import { useApi, useApp } from '../../stores/context';

export function TeamServerSection() {
  const api = useApi();
  const team = useApp((state) => state.team);
  const action = useAction();
  const [form, setForm] = useState({ server: team?.server ?? '', username: '', password: '', totp: '' });
  const [askTotp, setAskTotp] = useState(false);

  const connect = async (event: FormEvent) => {
    event.preventDefault();
    const session = await action.run(() => api.invoke('team:connect', { server: form.server, username: form.username, password: form.password, ...(askTotp && form.totp ? { totp: form.totp } : {}) }));
    if (session) window.location.reload();
  };
  const leave = async () => {
    if (await action.run(() => api.invoke('team:disconnect'))) window.location.reload();
  };
  // The server asks for the code once the password is right.
  const totpAsked = Boolean(action.fieldErrors.totp);
  useEffect(() => {
    if (totpAsked) setAskTotp(true);
  }, [totpAsked]);
  if (!team || team.mode === 'server') return null;

  return (
    <Card withBorder data-testid="team-server">
      <Title order={4}>Team server</Title>
      {team.mode === 'connected' && team.person ? (
        <Stack gap="xs">
          <Text size="sm" data-testid="team-server-connected">
            This desk works on the team server {team.server}, signed in as {team.person.displayName} ({team.person.username}). Every screen shows the team&apos;s ledger; your own ledger is kept as it was.
          </Text>
          <Button w="fit-content" variant="default" onClick={() => void leave()} loading={action.busy}>
            Leave the team server
          </Button>
        </Stack>
      ) : (
        <form onSubmit={(event) => void connect(event)}>
          <Stack gap="xs">
            <Text size="sm" c="dimmed">
              Work on your team&apos;s shared ledger: sign in to its server. Without one, this desk works alone on its own ledger, as now.
            </Text>
            {team.lostBecause && (
              <Alert color="orange" title="Signed out of the team server">
                {team.lostBecause}
              </Alert>
            )}
            {action.error && (
              <Alert color="red" role="alert">
                {action.error}
              </Alert>
            )}
            <TextInput label="Server address" placeholder="https://paydesk.example.com" required value={form.server} error={action.fieldErrors.server} onChange={(e) => setForm({ ...form, server: e.currentTarget.value })} />
            <Group grow>
              <TextInput label="User name" autoComplete="username" required value={form.username} error={action.fieldErrors.username} onChange={(e) => setForm({ ...form, username: e.currentTarget.value })} />
              <PasswordInput label="Password" autoComplete="current-password" required value={form.password} onChange={(e) => setForm({ ...form, password: e.currentTarget.value })} />
            </Group>
            {askTotp && <TextInput label="Code from your authenticator app" inputMode="numeric" maxLength={6} value={form.totp} onChange={(e) => setForm({ ...form, totp: e.currentTarget.value.replace(/\D/g, '') })} />}
            <Button type="submit" w="fit-content" loading={action.busy}>
              Sign in to the team server
            </Button>
          </Stack>
        </form>
      )}
    </Card>
  );
}
