import { Alert, Anchor } from '@mantine/core';
import type { ReactNode } from 'react';

/** What main said when a read failed, and a way to ask again. */
export function LoadError({ title, message, onRetry, children }: { title: string; message: string; onRetry: () => void; children?: ReactNode }) {
  return (
    <Alert color="red" role="alert" title={title} mb="xs">
      {message} {children}{' '}
      <Anchor component="button" onClick={onRetry}>
        Try again
      </Anchor>
    </Alert>
  );
}
