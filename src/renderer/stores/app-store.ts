// App-wide state: what main says about itself (mode, data dir, keychain, environment) and the
// user's settings. Kept in sync with main through the settings push.
import { createStore } from 'zustand/vanilla';
import type { AppInfo, Settings } from '../../shared/contract';
import type { ApiClient } from '../api/client';

export interface AppState {
  info: AppInfo | null;
  settings: Settings | null;
  loadError: string | null;
  load(): Promise<void>;
  updateSettings(patch: Partial<Settings>): Promise<void>;
}

export function createAppStore(api: ApiClient) {
  const store = createStore<AppState>()((set) => ({
    info: null,
    settings: null,
    loadError: null,
    async load() {
      try {
        const [info, settings] = await Promise.all([api.invoke('app:get-info'), api.invoke('settings:get')]);
        set({ info, settings, loadError: null });
      } catch (error) {
        set({ loadError: (error as Error).message });
      }
    },
    async updateSettings(patch) {
      const settings = await api.invoke('settings:update', patch);
      set({ settings });
    },
  }));
  api.on('settings:settings-changed', (settings) => store.setState({ settings }));
  return store;
}

export type AppStore = ReturnType<typeof createAppStore>;
