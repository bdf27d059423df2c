import { FormError } from '../../components/FormError';
import { Alert, Badge, Button, Card, Code, Group, PasswordInput, Stack, Tabs, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import type { InvokeOutput, ProfileView } from '../../../shared/contract';
import { CopyValue } from '../../components/CopyValue';
import { useAction } from '../../components/use-action';
import { useApi } from '../../stores/context';
import { useCustodyWords } from './use-custody-words';

type PublicKey = InvokeOutput<'credentials:export-public-key'>;

function CredentialBadge({ state }: { state: ProfileView['credentials']['merchantToken'] }) {
  return state.set ? (
    <Group gap="xs">
      <Badge color="teal">set</Badge>
      {state.fingerprint && <Code>fingerprint {state.fingerprint}</Code>}
    </Group>
  ) : (
    <Badge color="gray">not set</Badge>
  );
}

function MerchantToken({ profile }: { profile: ProfileView }) {
  const api = useApi();
  const action = useAction();
  const words = useCustodyWords();
  const [token, setToken] = useState('');
  if (profile.environment === 'local') {
    return <Text size="sm">The embedded emulator supplies its own merchant-token; nothing to set.</Text>;
  }
  return (
    <Stack gap="xs">
      <CredentialBadge state={profile.credentials.merchantToken} />
      <Group align="flex-end">
        <PasswordInput
          label={profile.credentials.merchantToken.set ? 'Replace merchant-token' : 'Set merchant-token'}
          description={words.tokenField}
          value={token}
          onChange={(e) => setToken(e.currentTarget.value)}
          error={action.fieldErrors.token}
          w={380}
          autoComplete="off"
        />
        <Button
          loading={action.busy}
          disabled={token.trim() === ''}
          onClick={async () => {
            if (await action.run(() => api.invoke('credentials:set-merchant-token', { profileId: profile.id, token }), words.tokenStored)) setToken('');
          }}
        >
          Save
        </Button>
        {profile.credentials.merchantToken.set && (
          <Button variant="subtle" color="red" onClick={() => void action.run(() => api.invoke('credentials:clear-merchant-token', { profileId: profile.id }), 'merchant-token removed')}>
            Remove
          </Button>
        )}
      </Group>
      <FormError action={action} shown={['token']} mt={0} />
    </Stack>
  );
}

/** A kid is case-sensitive: shown exactly, in code type, never in a badge (badges set text upper-case). */
function KidLabel({ kid }: { kid: string }) {
  return (
    <Text size="sm" span>
      kid <Code data-testid="kid">{kid}</Code>
    </Text>
  );
}

function PublicKeyView({ exported }: { exported: PublicKey }) {
  return (
    <Card withBorder data-testid="public-key">
      <Stack gap="xs">
        <Group gap="xs">
          <Text fw={500}>Public key</Text>
          <KidLabel kid={exported.kid} />
          {exported.registeredWithEmulator && <Badge color="teal">registered with the local emulator</Badge>}
        </Group>
        <Text size="sm">
          Fingerprint (RFC 7638): <Code>{exported.fingerprint}</Code>
        </Text>
        <Text size="sm" fw={500}>
          JWK
        </Text>
        <CopyValue value={JSON.stringify(exported.jwk)} label="public JWK" />
        <Text size="sm" fw={500}>
          PEM
        </Text>
        <CopyValue value={exported.pem} label="public PEM" />
      </Stack>
    </Card>
  );
}

function SigningKey({ profile }: { profile: ProfileView }) {
  const api = useApi();
  const action = useAction();
  const words = useCustodyWords();
  const [kid, setKid] = useState('');
  const [privateKey, setPrivateKey] = useState('');
  const [exported, setExported] = useState<PublicKey | null>(null);
  const kidInput = kid.trim() === '' ? {} : { kid: kid.trim() };

  return (
    <Stack gap="xs">
      <Group gap="xs">
        <CredentialBadge state={profile.credentials.privateKey} />
        {profile.kid && <KidLabel kid={profile.kid} />}
      </Group>
      <Tabs defaultValue="generate">
        <Tabs.List>
          <Tabs.Tab value="generate">Generate</Tabs.Tab>
          <Tabs.Tab value="import">Import</Tabs.Tab>
          <Tabs.Tab value="export" disabled={!profile.credentials.privateKey.set}>
            Export public key
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="generate" pt="sm">
          <Group align="flex-end">
            <TextInput label="kid (optional)" description="Defaults to the key's thumbprint." value={kid} onChange={(e) => setKid(e.currentTarget.value)} error={action.fieldErrors.kid} />
            <Button
              loading={action.busy}
              onClick={async () => {
                const result = await action.run(() => api.invoke('credentials:generate-key', { profileId: profile.id, ...kidInput }), words.keyGenerated);
                if (result) setExported(result);
              }}
            >
              Generate Ed25519 key
            </Button>
          </Group>
        </Tabs.Panel>
        <Tabs.Panel value="import" pt="sm">
          <Stack gap="xs">
            <Textarea
              label="Private key (PKCS#8 PEM or JWK)"
              description={words.keyField}
              autosize
              minRows={3}
              value={privateKey}
              onChange={(e) => setPrivateKey(e.currentTarget.value)}
              error={action.fieldErrors.privateKey}
              styles={{ input: { fontFamily: 'monospace' } }}
            />
            <Group align="flex-end">
              <TextInput label="kid (optional)" value={kid} onChange={(e) => setKid(e.currentTarget.value)} />
              <Button
                loading={action.busy}
                disabled={privateKey.trim() === ''}
                onClick={async () => {
                  const result = await action.run(() => api.invoke('credentials:import-key', { profileId: profile.id, privateKey, ...kidInput }), words.keyImported);
                  if (result) {
                    setPrivateKey('');
                    setExported(result);
                  }
                }}
              >
                Import key
              </Button>
            </Group>
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="export" pt="sm">
          <Button
            variant="light"
            onClick={async () => {
              const result = await action.run(() => api.invoke('credentials:export-public-key', { profileId: profile.id }));
              if (result) setExported(result);
            }}
          >
            Show public key
          </Button>
        </Tabs.Panel>
      </Tabs>
      {action.error && (
        <Text c="red" size="sm" role="alert">
          {action.error}
        </Text>
      )}
      {exported && <PublicKeyView exported={exported} />}
    </Stack>
  );
}

export function CredentialsSection({ profile }: { profile: ProfileView }) {
  return (
    <Card withBorder>
      <Title order={4} mb="sm">
        Credentials · {profile.name}
      </Title>
      {profile.environment === 'live' && (
        <Alert color="red" mb="sm">
          Live credentials: real money.
        </Alert>
      )}
      <Stack>
        <div>
          <Text fw={500} mb={4}>
            merchant-token
          </Text>
          <MerchantToken profile={profile} />
        </div>
        <div>
          <Text fw={500} mb={4}>
            JWT signing key (Ed25519)
          </Text>
          <SigningKey key={profile.id} profile={profile} />
        </div>
      </Stack>
    </Card>
  );
}
