// The reconciliation sweep as main runs it: one sweep at a time, in main, whether or not the
// screen is open. The store keeps its latest state from the progress push, so the progress bar
// is right when the user comes back to the screen.
import { createStore } from 'zustand/vanilla';
import type { SweepState, TransactionSubject } from '../../../shared/contract';
import type { ApiClient } from '../../api/client';

export interface SweepStoreState {
  sweep: SweepState | null;
  loaded: boolean;
  /** The last start / cancel / status call that failed, as main worded it. */
  error: string | null;
  busy: boolean;
  load(): Promise<void>;
  start(options: { profileId?: string; subjects?: TransactionSubject[] }): Promise<void>;
  cancel(): Promise<void>;
}

export function createSweepStore(api: ApiClient) {
  const store = createStore<SweepStoreState>()((set, get) => {
    const attempt = async (work: () => Promise<SweepState | null>) => {
      set({ busy: true, error: null });
      try {
        const sweep = await work();
        set({ busy: false, loaded: true, ...(sweep ? { sweep: newer(get().sweep, sweep) } : {}) });
      } catch (error) {
        set({ busy: false, error: (error as Error).message });
      }
    };
    return {
      sweep: null,
      loaded: false,
      error: null,
      busy: false,
      load: () => attempt(async () => (await api.invoke('reconciliation:sweep-status')).sweep),
      start: (options) => attempt(() => api.invoke('reconciliation:sweep-start', options)),
      cancel: () => attempt(async () => (await api.invoke('reconciliation:sweep-cancel', get().sweep ? { id: get().sweep?.id } : {})).sweep),
    };
  });
  api.on('reconciliation:sweep-changed', (sweep) => store.setState((state) => ({ sweep: newer(state.sweep, sweep), loaded: true })));
  return store;
}

/**
 * Pushes and call answers can cross: an answer that left main before the last progress push must
 * not move the bar back. Within one sweep, the state with more work done (or an ended one) wins.
 */
function newer(current: SweepState | null, next: SweepState): SweepState {
  if (!current || current.id !== next.id) return next;
  if (current.state !== 'running' && next.state === 'running') return current;
  if (next.state === 'running' && next.done < current.done) return current;
  return next;
}

export type SweepStore = ReturnType<typeof createSweepStore>;
