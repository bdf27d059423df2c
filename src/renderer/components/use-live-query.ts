// A read from main that stays current: loaded when its inputs change, and again (at most once per
// `throttleMs`) when one of the given pushes says the ledger moved. Answers that arrive out of
// order are dropped, so a slow old answer never overwrites a newer one. The previous data stays on
// screen while a reload runs (no flicker); `loading` says one is running.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { PushChannel } from '../../shared/contract';
import { ContractError } from '../api/client';
import { useApi } from '../stores/context';
import { errorMessage } from '../../shared/error-message';

export interface LiveQuery<T> {
  data: T | null;
  error: string | null;
  /** Field → problem, when main refused the input (ContractError.fields). */
  fieldErrors: Record<string, string>;
  loading: boolean;
  reload: () => void;
}

export function useLiveQuery<T>(load: () => Promise<T>, deps: readonly unknown[], options: { pushes?: readonly PushChannel[]; throttleMs?: number; enabled?: boolean } = {}): LiveQuery<T> {
  const api = useApi();
  const { pushes = [], throttleMs = 2_000, enabled = true } = options;
  const [state, setState] = useState<Omit<LiveQuery<T>, 'reload'>>({ data: null, error: null, fieldErrors: {}, loading: enabled });
  const loadRef = useRef(load);
  loadRef.current = load;
  const sequence = useRef(0);

  const run = useCallback(async () => {
    const mine = ++sequence.current;
    setState((s) => ({ ...s, loading: true }));
    try {
      const data = await loadRef.current();
      if (mine === sequence.current) setState({ data, error: null, fieldErrors: {}, loading: false });
    } catch (error) {
      if (mine !== sequence.current) return;
      const message = errorMessage(error);
      setState((s) => ({ data: s.data, error: message, fieldErrors: error instanceof ContractError ? error.fields : {}, loading: false }));
    }
  }, []);

  useEffect(() => {
    if (enabled) void run();
    // Any answer still on its way belongs to the old inputs.
    return () => void ++sequence.current;
    // The caller names what the load depends on.
  }, [run, enabled, ...deps]);

  const pushKey = pushes.join(',');
  useEffect(() => {
    if (!enabled || pushKey === '') return;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const schedule = () => {
      timer ??= setTimeout(() => {
        timer = null;
        void run();
      }, throttleMs);
    };
    const offs = (pushKey.split(',') as PushChannel[]).map((channel) => api.on(channel, schedule));
    return () => {
      if (timer) clearTimeout(timer);
      offs.forEach((off) => off());
    };
  }, [api, run, enabled, pushKey, throttleMs]);

  return { ...state, reload: useCallback(() => void run(), [run]) };
}
