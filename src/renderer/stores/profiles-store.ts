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
  /** Reads started so far: only the latest one's answer is kept (an older one can arrive last). */
  let reads = 0;
  const store = createStore<ProfilesState>()((set) => ({
    profiles: null,
    loadError: null,
    async load() {
      const mine = ++reads;
      try {
        const profiles = await api.invoke('profiles:list');
        if (mine === reads) set({ profiles, loadError: null });
      } catch (error) {
        if (mine === reads) set({ loadError: (error as Error).message });
      }
    },
  }));
  // Read again rather than taken from the push: which profile is active is each person's own on a
  // team server, and the push carries the list as the person who changed it sees it.
  api.on('profiles:profiles-changed', () => {
    void store
      .getState()
      .load()
      .then(() => onChanged());
  });
  return store;
}

export type ProfilesStore = ReturnType<typeof createProfilesStore>;
