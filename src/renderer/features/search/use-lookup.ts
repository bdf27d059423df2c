// Lookup as the user types: debounced, and only the answer to the latest query is kept.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { OrphanMatch, SearchMatch } from '../../../shared/contract';
import { useApi } from '../../stores/context';
import { errorMessage } from '../../../shared/error-message';

const DEBOUNCE_MS = 200;

/** Transactions in the ledger, then notifications kept as orphans (no transaction to open). */
export interface LookupAnswer {
  matches: SearchMatch[];
  orphans: OrphanMatch[];
}

const NOTHING: LookupAnswer = { matches: [], orphans: [] };

export interface LookupState extends LookupAnswer {
  /** The query these matches answer; null before any answer. */
  answered: string | null;
  busy: boolean;
  error: string | null;
}

export function useLookup(query: string): LookupState & { now: () => Promise<LookupAnswer> } {
  const api = useApi();
  const [state, setState] = useState<LookupState>({ answered: null, ...NOTHING, busy: false, error: null });
  const latest = useRef('');

  const lookup = useCallback(
    async (term: string): Promise<LookupAnswer> => {
      latest.current = term;
      if (term === '') {
        setState({ answered: null, ...NOTHING, busy: false, error: null });
        return NOTHING;
      }
      setState((s) => ({ ...s, busy: true }));
      try {
        const answer = await api.invoke('search:lookup', { query: term });
        if (latest.current === term) setState({ answered: term, matches: answer.matches, orphans: answer.orphans, busy: false, error: null });
        return answer;
      } catch (error) {
        if (latest.current === term) setState({ answered: term, ...NOTHING, busy: false, error: errorMessage(error) });
        return NOTHING;
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
  const now = useCallback(
    async () => (state.answered === term && !state.busy ? { matches: state.matches, orphans: state.orphans } : lookup(term)),
    [state, term, lookup],
  );
  return { ...state, now };
}
