// Lookup as the user types: debounced, and only the answer to the latest query is kept.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { SearchMatch } from '../../../shared/contract';
import { useApi } from '../../stores/context';
import { errorMessage } from '../../../shared/error-message';

const DEBOUNCE_MS = 200;

export interface LookupState {
  /** The query these matches answer; null before any answer. */
  answered: string | null;
  matches: SearchMatch[];
  busy: boolean;
  error: string | null;
}

export function useLookup(query: string): LookupState & { now: () => Promise<SearchMatch[]> } {
  const api = useApi();
  const [state, setState] = useState<LookupState>({ answered: null, matches: [], busy: false, error: null });
  const latest = useRef('');

  const lookup = useCallback(
    async (term: string): Promise<SearchMatch[]> => {
      latest.current = term;
      if (term === '') {
        setState({ answered: null, matches: [], busy: false, error: null });
        return [];
      }
      setState((s) => ({ ...s, busy: true }));
      try {
        const { matches } = await api.invoke('search:lookup', { query: term });
        if (latest.current === term) setState({ answered: term, matches, busy: false, error: null });
        return matches;
      } catch (error) {
        if (latest.current === term) setState({ answered: term, matches: [], busy: false, error: errorMessage(error) });
        return [];
      }
    },
    [api],
  );

  const term = query.trim();
  useEffect(() => {
    const timer = setTimeout(() => void lookup(term), term === '' ? 0 : DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [term, lookup]);

  /** Looks up right away (Enter pressed before the pause in typing), reusing an answer already in. */
  const now = useCallback(async () => (state.answered === term && !state.busy ? state.matches : lookup(term)), [state, term, lookup]);
  return { ...state, now };
}
