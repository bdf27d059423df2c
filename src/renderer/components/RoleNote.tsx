// Why a control is missing for the signed-in person: what their role may not do, and whose job it
// is. Nothing on a single desk, nor for a role that may.
import { Text } from '@mantine/core';
import type { InvokeChannel } from '../../shared/contract';
import { useAccess } from '../stores/access';

export function RoleNote({ channel }: { channel: InvokeChannel }) {
  const why = useAccess().why(channel);
  if (!why) return null;
  return (
    <Text size="sm" c="dimmed" data-testid="role-note">
      {why}
    </Text>
  );
}
