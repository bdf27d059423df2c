// App-wide state: what main says about itself (mode, data dir, keychain, environment) and the
// user's settings. Kept in sync with main through the settings push.
import { createStore } from 'zustand/vanilla';
import type { AppInfo, Settings, TeamSession } from '../../shared/contract';
import type { ApiClient } from '../api/client';

export interface AppState {
  info: AppInfo | null;
  settings: Settings | null;
  /** Who is signed in (a team server's page, or a desk connected to one), or a single desk. */
  team: TeamSession | null;
  loadError: string | null;
  load(): Promise<void>;
  updateSettings(patch: Partial<Settings>): Promise<void>;
}

export function createAppStore(api: ApiClient, team: TeamSession | null = null) {
  /** Settings pushes received so far: a read that started before the last one is older than it. */
  let settingsPushes = 0;
  const store = createStore<AppState>()((set) => ({
    info: null,
    settings: null,
    team,
    loadError: null,
    async load() {
      try {
        const pushesBefore = settingsPushes;
        const [info, settings, session] = await Promise.all([api.invoke('app:get-info'), api.invoke('settings:get'), api.invoke('team:get-session')]);
        // A push that arrived meanwhile (another window changed the theme) is newer than this read: keep it.
        set({ info, team: session, loadError: null, ...(settingsPushes === pushesBefore ? { settings } : {}) });
      } catch (error) {
        set({ loadError: (error as Error).message });
      }
    },
    async updateSettings(patch) {
      const settings = await api.invoke('settings:update', patch);
      set({ settings });
    },
  }));
  api.on('settings:settings-changed', (settings) => {
    settingsPushes++;
    store.setState({ settings });
  });
  api.on('team:session-changed', (session) => {
    const before = store.getState().team;
    store.setState({ team: session });
    // A desk that signed in to a team server (or left it, or lost its session) shows other data now: read it all again.
    if (before && before.mode !== session.mode) window.location.reload();
  });
  // A desk's team server came back unable to replay what its stream missed: read it all again.
  api.on('team:pushes-missed', () => window.location.reload());
  return store;
}

export type AppStore = ReturnType<typeof createAppStore>;
