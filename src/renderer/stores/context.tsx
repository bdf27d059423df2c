import { createContext, type ReactNode, useContext } from 'react';
import { useStore } from 'zustand';
import type { ApiClient } from '../api/client';
import { type AppState, type AppStore, createAppStore } from './app-store';

interface Stores {
  api: ApiClient;
  app: AppStore;
}

const StoresContext = createContext<Stores | null>(null);

export function createStores(api: ApiClient): Stores {
  return { api, app: createAppStore(api) };
}

export function StoresProvider({ stores, children }: { stores: Stores; children: ReactNode }) {
  return <StoresContext.Provider value={stores}>{children}</StoresContext.Provider>;
}

function useStores(): Stores {
  const stores = useContext(StoresContext);
  if (!stores) throw new Error('StoresProvider is missing');
  return stores;
}

export function useApp<T>(selector: (state: AppState) => T): T {
  return useStore(useStores().app, selector);
}
