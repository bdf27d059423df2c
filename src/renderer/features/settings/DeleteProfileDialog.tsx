import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import type { ProfileView } from '../../../shared/contract';
import { Dialog } from '../../components/Dialog';
import { useAction } from '../../components/use-action';
import { useApi } from '../../stores/context';
import { useCustodyWords } from './use-custody-words';

interface Props {
  opened: boolean;
  onClose: () => void;
  /** The profile asked about (kept while the dialog closes). */
  profile: ProfileView | null;
}

/**
 * Deleting a profile. Main refuses it while the ledger holds transactions of the profile (they keep
 * the profile they were sent with); the dialog then says so, with main's words, and offers what
 * can be done instead: archive it (it leaves the switcher and the pickers, its transactions stay,
 * and it can be restored) or keep it as it is.
 */
export function DeleteProfileDialog({ opened, onClose, profile }: Props) {
  const [refused, setRefused] = useState(false);
  const title = profile === null ? 'Delete profile' : refused ? `“${profile.name}” cannot be deleted` : `Delete profile “${profile.name}”?`;
  return (
    <Dialog opened={opened} onClose={onClose} title={title} onExitTransitionEnd={() => setRefused(false)}>
      {opened && profile && <DeleteProfile profile={profile} onClose={onClose} onRefused={() => setRefused(true)} />}
    </Dialog>
  );
}

function DeleteProfile({ profile, onClose, onRefused }: { profile: ProfileView; onClose: () => void; onRefused: () => void }) {
  const api = useApi();
  const words = useCustodyWords();
  const deletion = useAction();
  const archiving = useAction();
  const remove = async () => {
    if (await deletion.run(() => api.invoke('profiles:delete', { id: profile.id }), `Profile “${profile.name}” deleted`)) onClose();
    else onRefused();
  };
  const archive = async () => {
    if (await archiving.run(() => api.invoke('profiles:archive', { id: profile.id }), `Profile “${profile.name}” archived`)) onClose();
  };

  if (deletion.error) {
    const mayArchive = profile.archivedAt === null;
    return (
      <Stack data-testid="profile-delete-refused">
        <Alert color="orange" role="alert">
          {deletion.error}
        </Alert>
        {archiving.error && (
          <Text c="red" size="sm" role="alert">
            {archiving.error}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} data-autofocus={mayArchive ? undefined : true}>
            {mayArchive ? 'Keep it' : 'Keep it archived'}
          </Button>
          {mayArchive && (
            <Button onClick={() => void archive()} loading={archiving.busy} data-autofocus>
              Archive “{profile.name}”
            </Button>
          )}
        </Group>
      </Stack>
    );
  }
  return (
    <Stack>
      <Text size="sm">
        {words.onDelete} This cannot be undone. A profile that has transactions in the ledger cannot be deleted: you can archive it instead.
      </Text>
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose} data-autofocus>
          Cancel
        </Button>
        <Button color="red" onClick={() => void remove()} loading={deletion.busy}>
          Delete
        </Button>
      </Group>
    </Stack>
  );
}
