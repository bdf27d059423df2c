// The app and profiles stores keep the newest data. A settings push that arrives while the first
// read is on its way (another window changed the theme) is not overwritten by that older read (the
// e2e "switches theme ... pushes it to other windows" failed one run in three on this race); of two
// profile reads, the older answer arriving last does not win.
import { describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../../src/renderer/api/client';
import { createAppStore } from '../../../src/renderer/stores/app-store';
import { createProfilesStore } from '../../../src/renderer/stores/profiles-store';
import type { Settings } from '../../../src/shared/contract';

function fakeApi(settingsRead: Promise<Partial<Settings>>) {
  const listeners = new Map<string, (payload: unknown) => void>();
  const api = {
    invoke: (channel: string) => {
      if (channel === 'settings:get') return settingsRead;
      if (channel === 'app:get-info') return Promise.resolve({ mode: 'web' });
      if (channel === 'team:get-session') return Promise.resolve({ mode: 'desk', person: null });
      throw new Error(`unexpected ${channel}`);
    },
    on: (channel: string, listener: (payload: unknown) => void) => {
      listeners.set(channel, listener);
      return () => listeners.delete(channel);
    },
  } as unknown as ApiClient;
  return { api, push: (channel: string, payload: unknown) => listeners.get(channel)?.(payload) };
}

describe('the app store', () => {
  it('keeps a settings push that arrived while the first read was on its way', async () => {
    let answer!: (settings: Partial<Settings>) => void;
    const { api, push } = fakeApi(new Promise((resolve) => (answer = resolve)));
    const store = createAppStore(api);
    const loading = store.getState().load();
    push('settings:settings-changed', { theme: 'dark' });
    answer({ theme: 'light' });
    await loading;
    expect(store.getState().settings).toEqual({ theme: 'dark' });
    expect(store.getState().info).toEqual({ mode: 'web' });
  });

  it('takes the read when no push came meanwhile, and a later push over it', async () => {
    const { api, push } = fakeApi(Promise.resolve({ theme: 'light' }));
    const store = createAppStore(api);
    await store.getState().load();
    expect(store.getState().settings).toEqual({ theme: 'light' });
    push('settings:settings-changed', { theme: 'dark' });
    expect(store.getState().settings).toEqual({ theme: 'dark' });
  });
});

describe('the app store on a desk linked to a team server', () => {
  it('reloads the window when the server could not replay the pushes its stream missed, and not on a session push of the same mode', async () => {
    const reload = vi.fn();
    vi.stubGlobal('window', { location: { reload } });
    try {
      const { api, push } = fakeApi(Promise.resolve({ theme: 'light' }));
      const store = createAppStore(api);
      await store.getState().load();
      push('team:session-changed', { mode: 'desk', person: null });
      expect(reload).not.toHaveBeenCalled();
      push('team:pushes-missed', {});
      expect(reload).toHaveBeenCalledTimes(1);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('the profiles store', () => {
  it('keeps the answer of the latest read when an older one arrives last', async () => {
    const answers: ((profiles: unknown[]) => void)[] = [];
    const api = {
      invoke: () => new Promise((resolve) => answers.push(resolve)),
      on: () => () => {},
    } as unknown as ApiClient;
    const store = createProfilesStore(api, () => {});
    const first = store.getState().load();
    const second = store.getState().load();
    answers[1]!([{ id: 'new' }]);
    await second;
    answers[0]!([{ id: 'old' }]);
    await first;
    expect(store.getState().profiles).toEqual([{ id: 'new' }]);
  });
});
