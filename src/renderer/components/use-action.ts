import { notifications } from '@mantine/notifications';
import { useCallback, useState } from 'react';
import { ContractError } from '../api/client';
import { errorMessage } from '../../shared/error-message';

export interface ActionState {
  busy: boolean;
  error: string | null;
  fieldErrors: Record<string, string>;
}

/**
 * Runs one user action against main: shows it as busy, keeps the error (with per-field messages
 * for forms) and announces success. Errors name the field and the fix, as main wrote them.
 */
export function useAction() {
  const [state, setState] = useState<ActionState>({ busy: false, error: null, fieldErrors: {} });
  const run = useCallback(async <T,>(work: () => Promise<T>, success?: string): Promise<T | undefined> => {
    setState({ busy: true, error: null, fieldErrors: {} });
    try {
      const result = await work();
      setState({ busy: false, error: null, fieldErrors: {} });
      if (success) notifications.show({ color: 'teal', message: success });
      return result;
    } catch (error) {
      const message = errorMessage(error);
      setState({ busy: false, error: message, fieldErrors: error instanceof ContractError ? error.fields : {} });
      return undefined;
    }
  }, []);
  const reset = useCallback(() => setState({ busy: false, error: null, fieldErrors: {} }), []);
  return { ...state, run, reset };
}
