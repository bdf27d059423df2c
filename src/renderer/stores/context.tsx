import { createContext, type ReactNode, useContext } from 'react';
import { useStore } from 'zustand';
import type { ApiClient } from '../api/client';
import { type AppState, type AppStore, createAppStore } from './app-store';
import { createProfilesStore, type ProfilesState, type ProfilesStore } from './profiles-store';
import { createSweepStore, type SweepStore } from '../features/reconciliation/sweep-store';
import { createNotificationsStore, type NotificationsStore } from '../features/webhooks/notifications-store';
import { createPayinsListStore, type PayinsListStore } from '../features/payins/payins-store';
import { createPayoutsStore, type PayoutsStore } from '../features/payouts/payouts-store';

interface Stores {
  api: ApiClient;
  app: AppStore;
  profiles: ProfilesStore;
  sweep: SweepStore;
  notifications: NotificationsStore;
  payinsList: PayinsListStore;
  payouts: PayoutsStore;
}

const StoresContext = createContext<Stores | null>(null);

export function createStores(api: ApiClient): Stores {
  const app = createAppStore(api);
  // The environment badge follows the active profile.
  const profiles = createProfilesStore(api, () => void app.getState().load());
  return { api, app, profiles, sweep: createSweepStore(api), notifications: createNotificationsStore(api), payinsList: createPayinsListStore(api), payouts: createPayoutsStore(api) };
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
