import { Button } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useAction } from '../../components/use-action';
import { useApi } from '../../stores/context';

/**
 * One pass of main's automatic settling over the Unknown outcomes (what the sweep and start-up
 * do): each under its own key; card attempts after a restart and live payouts stay for a person.
 */
export function SettleUnknownButton({ profileId, disabled, onDone }: { profileId?: string; disabled: boolean; onDone: () => void }) {
  const api = useApi();
  const action = useAction();
  const settle = async () => {
    const summary = await action.run(() => api.invoke('attempts:settle-unknown', profileId ? { profileId } : {}));
    if (!summary) return;
    notifications.show({
      color: summary.left > 0 ? 'yellow' : 'teal',
      message: summary.tried === 0 ? 'Nothing to settle.' : `${summary.settled} settled, ${summary.left} left for a person (see each row's detail).`,
    });
    onDone();
  };
  return (
    <Button size="xs" onClick={() => void settle()} loading={action.busy} disabled={disabled} title={action.error ?? undefined} data-testid="settle-unknown">
      Settle what can be settled
    </Button>
  );
}
