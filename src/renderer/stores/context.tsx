import { createContext, type ReactNode, useContext } from 'react';
import { useStore } from 'zustand';
import type { TeamSession } from '../../shared/contract';
import type { ApiClient } from '../api/client';
import { type AppState, type AppStore, createAppStore } from './app-store';
import { createProfilesStore, type ProfilesState, type ProfilesStore } from './profiles-store';
import { createSweepStore, type SweepStore } from '../features/reconciliation/sweep-store';
import { createNotificationsStore, type NotificationsStore } from '../features/webhooks/notifications-store';
import { createPayinsListStore, createPayoutsListStore, type PayinsListStore, type PayoutsListStore } from '../features/transactions/transaction-list-store';
import { createBatchesStore, type BatchesStore } from '../features/payouts/batches-store';
import { createLimitsStore, type LimitsStore } from '../features/payouts/limits-store';
import { createStatementsStore, type StatementsStore } from '../features/reconciliation/statements/statements-store';

interface Stores {
  api: ApiClient;
  app: AppStore;
  profiles: ProfilesStore;
  sweep: SweepStore;
  notifications: NotificationsStore;
  payinsList: PayinsListStore;
  payoutsList: PayoutsListStore;
  batches: BatchesStore;
  limits: LimitsStore;
  statements: StatementsStore;
}

const StoresContext = createContext<Stores | null>(null);

export function createStores(api: ApiClient, team: TeamSession | null = null): Stores {
  const app = createAppStore(api, team);
  // The environment badge follows the active profile.
  const profiles = createProfilesStore(api, () => void app.getState().load());
  return {
    api,
    app,
    profiles,
    sweep: createSweepStore(api),
    notifications: createNotificationsStore(api),
    payinsList: createPayinsListStore(api),
    payoutsList: createPayoutsListStore(api),
    batches: createBatchesStore(api),
    limits: createLimitsStore(api),
    statements: createStatementsStore(api),
  };
}

export function StoresProvider({ stores, children }: { stores: Stores; children: ReactNode }) {
  return <StoresContext.Provider value={stores}>{children}</StoresContext.Provider>;
}

export function useStores(): Stores {
  const stores = useContext(StoresContext);
  if (!stores) throw new Error('StoresProvider is missing');
  return stores;
}

export function useApp<T>(selector: (state: AppState) => T): T {
  return useStore(useStores().app, selector);
}

export function useProfiles<T>(selector: (state: ProfilesState) => T): T {
  return useStore(useStores().profiles, selector);
}

export function useApi(): ApiClient {
  return useStores().api;
}
