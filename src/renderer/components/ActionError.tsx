import { Alert } from '@mantine/core';

/** Why the last action failed, as an alert read out at once; nothing while it has not failed. */
export function ActionError({ error, title }: { error: string | null; title?: string }) {
  if (!error) return null;
  return (
    <Alert color="red" title={title} role="alert">
      {error}
    </Alert>
  );
}
