import { Badge, Group, Text } from '@mantine/core';
import { useEffect } from 'react';
import { ENVIRONMENT_COLOR } from '../../components/environment-color';
import { useProfiles } from '../../stores/context';

/** The profile a transaction went through: its name and environment (a live one unmistakable), never a bare id. */
export function ProfileName({ profileId }: { profileId: string }) {
  const profiles = useProfiles((state) => state.profiles);
  const load = useProfiles((state) => state.load);
  useEffect(() => {
    if (profiles === null) void load();
  }, [profiles, load]);
  const profile = profiles?.find((p) => p.id === profileId);
  if (!profile) {
    return (
      <Text size="sm" c="dimmed" data-testid="transaction-profile" title={profileId}>
        {profiles === null ? 'Loading…' : 'a profile no longer in Settings'}
      </Text>
    );
  }
  return (
    <Group gap={6} wrap="nowrap" data-testid="transaction-profile" data-environment={profile.environment} title={profileId}>
      <Text size="sm">{profile.name}</Text>
      <Badge size="sm" color={ENVIRONMENT_COLOR[profile.environment]} variant={profile.environment === 'live' ? 'filled' : 'light'}>
        {profile.environment}
      </Badge>
    </Group>
  );
}
