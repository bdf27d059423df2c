import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import type { ProfileView } from '../../../shared/contract';
import { Dialog } from '../../components/Dialog';
import { useAction } from '../../components/use-action';
import { useApi } from '../../stores/context';

/** A button naming a long profile name wraps instead of cutting it. */
const WRAPPING = { label: { whiteSpace: 'normal', textAlign: 'center' } } as const;

interface Props {
  opened: boolean;
  onClose: () => void;
  /** The live profile to switch to (kept while the dialog closes). */
  profile: ProfileView | null;
  /** The profile active now, named on the button that keeps it. */
  current: ProfileView | undefined;
}

/**
 * A switch to a live profile, confirmed: it names the profile as live and what that means before
 * anything changes. Main refuses the switch without `confirmed: true` (ProfileService.activate),
 * so no screen or client can make it one stray click.
 */
export function LiveSwitchDialog({ opened, onClose, profile, current }: Props) {
  return (
    <Dialog opened={opened} onClose={onClose} title={profile ? `Switch to “${profile.name}”, a live profile?` : 'Switch to a live profile?'}>
      {opened && profile && <LiveSwitch profile={profile} current={current} onClose={onClose} />}
    </Dialog>
  );
}

function LiveSwitch({ profile, current, onClose }: { profile: ProfileView; current: ProfileView | undefined; onClose: () => void }) {
  const api = useApi();
  const action = useAction();
  const confirm = async () => {
    if (await action.run(() => api.invoke('profiles:activate', { id: profile.id, confirmed: true }), `${profile.name} (live) is now active`)) onClose();
  };
  return (
    <Stack data-testid="live-switch">
      <Alert color="red" variant="filled" title="LIVE — real money">
        <Text size="sm">
          “{profile.name}” is a live profile: every pay-in and payout sent while it is active goes to {profile.baseUrl} and moves real money.
        </Text>
      </Alert>
      {action.error && (
        <Text c="red" size="sm" role="alert">
          {action.error}
        </Text>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose} data-autofocus h="auto" py={6} styles={WRAPPING}>
          {current ? `Stay on “${current.name}”` : 'Cancel'}
        </Button>
        <Button color="red" onClick={() => void confirm()} loading={action.busy} h="auto" py={6} styles={WRAPPING}>
          Switch to “{profile.name}” (live)
        </Button>
      </Group>
    </Stack>
  );
}
