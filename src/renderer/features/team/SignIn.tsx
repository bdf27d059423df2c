// A team server's sign-in page: user name and password, then the 6-digit code when the person has
// a second factor. On success the page loads again, signed in (its cookie is HttpOnly: this page
// never holds the session token).
import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { CSRF_HEADER } from '../../../shared/web-stream';

interface LoginAnswer {
  ok: boolean;
  error?: { code: string; message: string; fields?: Record<string, string> };
}

export function SignIn() {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [totp, setTotp] = useState('');
  const [askTotp, setAskTotp] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const response = await fetch('/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json', [CSRF_HEADER]: '1' },
        body: JSON.stringify({ username, password, ...(askTotp && totp ? { totp } : {}) }),
      });
      const answer = (await response.json()) as LoginAnswer;
      if (answer.ok) {
        window.location.reload();
        return;
      }
      if (answer.error?.fields?.totp) setAskTotp(true);
      setError(answer.error?.message ?? `The team server answered HTTP ${response.status}.`);
    } catch {
      setError('The team server is not reachable.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w={380} component="main">
        <form onSubmit={(event) => void submit(event)} aria-labelledby="sign-in-title">
          <Stack>
            <div>
              <Title order={1} size="h2" id="sign-in-title">
                Paydesk
              </Title>
              <Text c="dimmed" size="sm">
                Sign in to your team&apos;s server.
              </Text>
            </div>
            {error && (
              <Alert color="red" role="alert" data-testid="sign-in-error">
                {error}
              </Alert>
            )}
            <TextInput label="User name" autoComplete="username" required value={username} onChange={(e) => setUsername(e.currentTarget.value)} autoFocus />
            <PasswordInput label="Password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
            {askTotp && (
              <TextInput
                label="Code from your authenticator app"
                autoComplete="one-time-code"
                inputMode="numeric"
                maxLength={6}
                required
                value={totp}
                onChange={(e) => setTotp(e.currentTarget.value.replace(/\D/g, ''))}
                data-autofocus
              />
            )}
            <Button type="submit" loading={busy}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
