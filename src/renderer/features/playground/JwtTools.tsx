import { Alert, Box, Button, Card, Code, Group, SegmentedControl, Select, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import type { DecodedJwtView as Decoded, InvokeOutput, ProfileView } from '../../../shared/contract';
import { CARD_FIELDS } from '../../../shared/spec/form-fields';
import { ActionError } from '../../components/ActionError';
import { CopyValue } from '../../components/CopyValue';
import { useAction } from '../../components/use-action';
import { useApi } from '../../stores/context';
import { DecodedJwtView } from './DecodedJwtView';
import { FieldInputs } from './FieldInputs';
import { setField } from './request-json';
import { sampleCard } from '../../../shared/spec/samples';
import { NoSigningKey } from './NoSigningKey';
import { useVaultedTokens } from './VaultedTokens';

type Signed = InvokeOutput<'jwt:sign'>;

const CARD = CARD_FIELDS.map((path) => ({ path }));

function SignJwt({ profile, onDecode }: { profile: ProfileView; onDecode: (jwt: string) => void }) {
  const api = useApi();
  const action = useAction();
  const { tokens } = useVaultedTokens(profile.id);
  const [op, setOp] = useState<'decrypt' | 'tokenize'>('decrypt');
  const [tokenId, setTokenId] = useState<string | null>(null);
  const [tokenRef, setTokenRef] = useState('');
  const [card, setCard] = useState<Record<string, string>>(() => ({ ...sampleCard() }));
  const [signed, setSigned] = useState<Signed | null>(null);

  const sign = async () => {
    setSigned(null);
    const input =
      op === 'tokenize'
        ? ({ op, profileId: profile.id, ...card } as const)
        : ({ op, profileId: profile.id, ...(tokenId !== null ? { tokenId: Number(tokenId) } : { token: tokenRef.trim() }) } as const);
    const result = await action.run(() => api.invoke('jwt:sign', input));
    if (result) setSigned(result);
  };

  return (
    <Card withBorder>
      <Stack>
        <Title order={4}>Sign a merchant JWT</Title>
        {!profile.credentials.privateKey.set && <NoSigningKey profile={profile} />}
        <SegmentedControl
          aria-label="JWT operation"
          value={op}
          onChange={(value) => setOp(value as 'decrypt' | 'tokenize')}
          data={[
            { value: 'decrypt', label: 'op=decrypt (token charge)' },
            { value: 'tokenize', label: 'op=tokenize (card)' },
          ]}
          w="fit-content"
        />
        {op === 'decrypt' ? (
          <Group align="flex-end" grow preventGrowOverflow={false}>
            <Select
              label="Vaulted token"
              placeholder={tokens && tokens.length > 0 ? 'Choose one' : 'None vaulted yet'}
              data={(tokens ?? []).map((t) => ({ value: String(t.id), label: `${t.maskedPan ?? t.tokenRef} · ${t.brand ?? 'card'} · ${t.state}` }))}
              value={tokenId}
              onChange={setTokenId}
              clearable
            />
            <TextInput
              label="…or a token reference"
              value={tokenRef}
              onChange={(event) => setTokenRef(event.currentTarget.value)}
              disabled={tokenId !== null}
              error={action.fieldErrors.token}
              styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            />
          </Group>
        ) : (
          <>
            <Text size="sm" c="dimmed">
              An op=tokenize JWT carries the card number in readable base64, so main signs it but never hands it over: you get the decoded view with the card number masked.
            </Text>
            <FieldInputs fields={CARD} form={card} errors={action.fieldErrors} onChange={(path, value) => setCard((current) => setField(current, path, value))} />
          </>
        )}
        <Group>
          <Button onClick={() => void sign()} loading={action.busy} disabled={!profile.credentials.privateKey.set || (op === 'decrypt' && tokenId === null && tokenRef.trim() === '')}>
            Sign JWT
          </Button>
        </Group>
        <ActionError error={action.error} />
        {signed?.withheld && (
          <Alert color="blue" title="JWT withheld" data-testid="jwt-withheld">
            {signed.withheld}
          </Alert>
        )}
        {signed?.jwt && (
          <Stack gap={4} data-testid="signed-jwt">
            <Text size="sm" fw={600}>
              Compact JWS
            </Text>
            <Box data-testid="signed-jwt-value">
              <CopyValue value={signed.jwt} label="JWT" />
            </Box>
            <Button size="xs" variant="light" w="fit-content" onClick={() => onDecode(signed.jwt as string)}>
              Decode it below
            </Button>
          </Stack>
        )}
        {signed && <DecodedJwtView decoded={signed.decoded} />}
      </Stack>
    </Card>
  );
}

function DecodeJwt({ profile, text, onText }: { profile: ProfileView; text: string; onText: (text: string) => void }) {
  const api = useApi();
  const action = useAction();
  const [decoded, setDecoded] = useState<Decoded | null>(null);
  const decode = async () => {
    setDecoded(null);
    const result = await action.run(() => api.invoke('jwt:decode', { profileId: profile.id, jwt: text }));
    if (result) setDecoded(result);
  };
  return (
    <Card withBorder>
      <Stack>
        <Title order={4}>Decode and verify</Title>
        <Textarea
          label="JWT"
          description={
            <>
              Paste any string.{' '}
              {profile.credentials.privateKey.set ? <>The signature is checked against the public key of &quot;{profile.name}&quot;;</> : <>&quot;{profile.name}&quot; has no JWT key, so no signature can be checked;</>} <Code>iat</Code> is
              checked against this computer&apos;s clock.
            </>
          }
          value={text}
          onChange={(event) => onText(event.currentTarget.value)}
          error={action.fieldErrors.jwt}
          autosize
          minRows={3}
          maxRows={10}
          spellCheck={false}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13, wordBreak: 'break-all' } }}
        />
        <Group>
          <Button onClick={() => void decode()} loading={action.busy} disabled={text.trim() === ''}>
            Decode
          </Button>
        </Group>
        {action.error && (
          <Alert color="red" role="alert" title="Could not decode">
            {action.error}
          </Alert>
        )}
        {decoded && <DecodedJwtView decoded={decoded} />}
      </Stack>
    </Card>
  );
}

/** Sign merchant JWTs with the profile's key and decode / verify any JWT. */
export function JwtTools({ profile }: { profile: ProfileView }) {
  const [text, setText] = useState('');
  return (
    <Stack>
      <SignJwt profile={profile} onDecode={setText} />
      <DecodeJwt profile={profile} text={text} onText={setText} />
    </Stack>
  );
}
