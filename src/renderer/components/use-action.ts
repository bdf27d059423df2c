import { notifications } from '@mantine/notifications';
import { useCallback, useState } from 'react';
import { ContractError } from '../api/client';
import { errorMessage } from '../../shared/error-message';
import { focusedControl, restoreFocus } from './focus-landing';

export interface ActionState {
  busy: boolean;
  error: string | null;
  fieldErrors: Record<string, string>;
}

/**
 * Runs one user action against main: shows it as busy, keeps the error (with per-field messages
 * for forms) and announces success. Errors name the field and the fix, as main wrote them. The
 * control that started it keeps the focus (its loader disables it meanwhile, which drops the focus).
 */
export function useAction() {
  const [state, setState] = useState<ActionState>({ busy: false, error: null, fieldErrors: {} });
  const run = useCallback(async <T,>(work: () => Promise<T>, success?: string): Promise<T | undefined> => {
    const pressed = focusedControl();
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
    } finally {
      restoreFocus(pressed);
    }
  }, []);
  const reset = useCallback(() => setState({ busy: false, error: null, fieldErrors: {} }), []);
  /**
   * The error to show under a form that shows `shown` fields' own messages beside them: none when
   * every problem already stands beside its field (one message, not the same one twice).
   */
  return { ...state, run, reset };
}
