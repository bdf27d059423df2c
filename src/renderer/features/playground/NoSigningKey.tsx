import { Alert, Button, Stack, Text } from '@mantine/core';
import type { ProfileView } from '../../../shared/contract';
import { navigate } from '../../shell/use-route';

/** Tokenization, token charges and JWT signing need the profile's Ed25519 key: say so and lead to Settings. */
export function NoSigningKey({ profile }: { profile: ProfileView }) {
  return (
    <Alert color="yellow" title="This profile has no JWT signing key" data-testid="no-jwt-key">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">
          Tokenization and token charges need a merchant JWT signed with the profile&apos;s Ed25519 key (spec 2.6). Generate or import one for &quot;{profile.name}&quot;
          {profile.environment === 'local' ? '; Paydesk registers it with the local emulator for you.' : ', then register its public key with the provider.'}
        </Text>
        <Button size="xs" onClick={() => navigate('settings')}>
          Open Settings
        </Button>
      </Stack>
    </Alert>
  );
}
