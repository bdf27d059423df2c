import { Alert, Anchor, Button, Group, Text } from '@mantine/core';
import type { NotificationReachView } from '../../shared/contract';
import { navigate, routeHash } from '../shell/use-route';

/**
 * Main's word that the gateway cannot post this profile's notifications (a loopback URL sent to a
 * sandbox or live gateway), with the settings that fix it: the profile's public URL, or the
 * listener's address. Nothing when notifications can arrive.
 */
export function NotificationReachAlert({ reach, profileId }: { reach: NotificationReachView; profileId: string }) {
  if (reach.reachable) return null;
  return (
    <Alert color="orange" title="Notifications cannot reach this machine" data-testid="notifications-unreachable">
      <Text size="sm">{reach.warning}</Text>
      <Group gap="md" mt="xs">
        <Button size="xs" variant="light" color="orange" onClick={() => navigate('settings', { params: { edit: profileId } })}>
          Set the public URL
        </Button>
        <Anchor size="sm" href={routeHash('settings', { params: { section: 'listener' } })}>
          Notification listener settings
        </Anchor>
      </Group>
    </Alert>
  );
}
