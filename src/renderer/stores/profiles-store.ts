// Profiles and their credential states, kept in sync with main through the profiles push.
import { createStore } from 'zustand/vanilla';
import type { ProfileView } from '../../shared/contract';
import type { ApiClient } from '../api/client';

export interface ProfilesState {
  profiles: ProfileView[] | null;
  loadError: string | null;
  load(): Promise<void>;
}

export function createProfilesStore(api: ApiClient, onChanged: () => void) {
  const store = createStore<ProfilesState>()((set) => ({
    profiles: null,
    loadError: null,
    async load() {
      try {
        set({ profiles: await api.invoke('profiles:list'), loadError: null });
      } catch (error) {
        set({ loadError: (error as Error).message });
      }
    },
  }));
  api.on('profiles:profiles-changed', (profiles) => {
    store.setState({ profiles });
    onChanged();
  });
  return store;
}

export type ProfilesStore = ReturnType<typeof createProfilesStore>;
