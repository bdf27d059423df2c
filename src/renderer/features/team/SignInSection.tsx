// Settings → Your sign-in (a person on a team server): who you are and your role, your password,
// your second factor (an authenticator app: its key shown once, confirmed with a code), and your
// open sessions.
import { Alert, Badge, Button, Card, Code, Group, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { ROLE_DUTIES, ROLE_LABELS } from '../../../shared/contract/roles';
import { LoadError } from '../../components/LoadError';
import { useAction } from '../../components/use-action';
import { useLiveQuery } from '../../components/use-live-query';
import { useScrollTo } from '../../components/use-scroll-to';
import { useApi, useApp } from '../../stores/context';
import { SessionsTable } from './TeamSection';

/** `focus`: scrolled to (a notice about the person's own role, `#/settings?section=team`, where they see no Team section). */
export function SignInSection({ focus = false }: { focus?: boolean }) {
  const api = useApi();
  const card = useScrollTo<HTMLDivElement>(focus);
  const team = useApp((state) => state.team);
  const person = team?.person;
  const sessions = useLiveQuery(() => api.invoke('team:list-sessions'), []);
  if (!team || !person) return null;
  const totpRequired = person.role === 'approver' && team.policy?.approverTotpRequired === true;
  return (
    <Card withBorder data-testid="sign-in-settings" ref={card}>
      <Title order={4}>Your sign-in</Title>
      <Text size="sm" mb="sm">
        {person.displayName} ({person.username}) on {team.server} · <Badge variant="light">{ROLE_LABELS[person.role]}</Badge> {ROLE_DUTIES[person.role]}.
      </Text>
      {totpRequired && !person.totpEnabled && (
        <Alert color="orange" mb="sm" title="Set up your second factor">
          The team requires approvers to sign in with an authenticator app. Until you set it up below, Paydesk lets you do nothing else.
        </Alert>
      )}
      <Stack gap="lg">
        <TotpSetup enabled={person.totpEnabled} required={totpRequired} />
        <PasswordChange />
        <div>
          <Title order={5} mb="xs">
            Your open sessions
          </Title>
          {sessions.error && <LoadError title="Your sessions could not be read" message={sessions.error} onRetry={sessions.reload} />}
          {sessions.data && <SessionsTable sessions={sessions.data.sessions.filter((s) => s.userId === person.id)} onEnded={sessions.reload} />}
        </div>
      </Stack>
    </Card>
  );
}

function TotpSetup({ enabled, required }: { enabled: boolean; required: boolean }) {
  const api = useApi();
  const load = useApp((state) => state.load);
  const action = useAction();
  const [enrolment, setEnrolment] = useState<{ secret: string; uri: string } | null>(null);
  const [code, setCode] = useState('');
  const start = async () => setEnrolment((await action.run(() => api.invoke('team:start-totp'))) ?? null);
  const confirm = async () => {
    if (await action.run(() => api.invoke('team:confirm-totp', { code }), 'Your second factor is on: sign-in asks for its code from now on.')) {
      setEnrolment(null);
      setCode('');
      await load();
    }
  };
  const disable = async () => {
    if (await action.run(() => api.invoke('team:disable-totp', { code }), 'Your second factor is off.')) {
      setCode('');
      await load();
    }
  };
  return (
    <Stack gap="xs" data-testid="totp">
      <Group gap="xs">
        <Title order={5}>Second factor</Title>
        {enabled ? <Badge color="teal">on</Badge> : <Badge color="gray">off</Badge>}
      </Group>
      {action.error && (
        <Alert color="red" role="alert">
          {action.error}
        </Alert>
      )}
      {!enabled && !enrolment && (
        <Button size="xs" w="fit-content" onClick={() => void start()} loading={action.busy}>
          Set up an authenticator app
        </Button>
      )}
      {enrolment && (
        <Stack gap="xs">
          <Text size="sm">Add this key to your authenticator app (or open the address with it), then enter the code it shows.</Text>
          <Text size="sm">
            Key: <Code data-testid="totp-secret">{enrolment.secret}</Code>
          </Text>
          <Code block data-testid="totp-uri">
            {enrolment.uri}
          </Code>
          <Group align="flex-end">
            <TextInput label="Code from the app" inputMode="numeric" maxLength={6} value={code} onChange={(e) => setCode(e.currentTarget.value.replace(/\D/g, ''))} error={action.fieldErrors.code} />
            <Button onClick={() => void confirm()} loading={action.busy}>
              Confirm
            </Button>
          </Group>
        </Stack>
      )}
      {enabled && !required && (
        <Group align="flex-end">
          <TextInput label="Code, to turn it off" inputMode="numeric" maxLength={6} value={code} onChange={(e) => setCode(e.currentTarget.value.replace(/\D/g, ''))} error={action.fieldErrors.code} />
          <Button variant="default" color="red" onClick={() => void disable()} loading={action.busy}>
            Turn off
          </Button>
        </Group>
      )}
    </Stack>
  );
}

function PasswordChange() {
  const api = useApi();
  const action = useAction();
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const submit = async () => {
    if (await action.run(() => api.invoke('team:change-password', { current, password }), 'Your password is changed; your other sessions have ended.')) {
      setCurrent('');
      setPassword('');
    }
  };
  return (
    <Stack gap="xs">
      <Title order={5}>Password</Title>
      {action.error && (
        <Alert color="red" role="alert">
          {action.error}
        </Alert>
      )}
      <Group align="flex-end">
        <PasswordInput label="Current password" autoComplete="current-password" value={current} error={action.fieldErrors.current} onChange={(e) => setCurrent(e.currentTarget.value)} />
        <PasswordInput label="New password" autoComplete="new-password" description="12 characters or more" value={password} error={action.fieldErrors.password} onChange={(e) => setPassword(e.currentTarget.value)} />
        <Button onClick={() => void submit()} loading={action.busy}>
          Change
        </Button>
      </Group>
    </Stack>
  );
}
