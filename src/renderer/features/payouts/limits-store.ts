// The payout limits and today's usage, kept live by 'limits:limits-changed'.
import { createStore } from 'zustand/vanilla';
import type { LimitsList } from '../../../shared/contract';
import type { ApiClient } from '../../api/client';
import { errorMessage } from '../../../shared/error-message';

export interface LimitsState {
  limits: LimitsList | null;
  limitsError: string | null;
  loadLimits(): Promise<void>;
}

export function createLimitsStore(api: ApiClient) {
  const store = createStore<LimitsState>()((set) => ({
    limits: null,
    limitsError: null,
    async loadLimits() {
      try {
        set({ limits: await api.invoke('limits:list'), limitsError: null });
      } catch (error) {
        set({ limitsError: errorMessage(error) });
      }
    },
  }));
  api.on('limits:limits-changed', (limits) => store.setState({ limits, limitsError: null }));
  return store;
}

export type LimitsStore = ReturnType<typeof createLimitsStore>;
