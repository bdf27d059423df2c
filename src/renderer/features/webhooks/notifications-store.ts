// The webhook inspector's list: keyset pages of received notifications (newest first) under the
// chosen filters, kept live by the notification push: a new one that fits the filters appears at
// the top, a changed one (applied, verified, contradicted) is updated in place.
import { createStore } from 'zustand/vanilla';
import type { NotificationOutcomeView, NotificationView } from '../../../shared/contract';
import type { ApiClient } from '../../api/client';
import { errorMessage } from '../../../shared/error-message';

export interface NotificationFilters {
  outcomes: NotificationOutcomeView[];
  events: string[];
  /** One profile's notifications (a sandbox apart from live, say); null: every profile. */
  profileId: string | null;
}

export interface NotificationsState {
  filters: NotificationFilters;
  items: NotificationView[];
  nextBeforeId: number | null;
  loading: boolean;
  loaded: boolean;
  error: string | null;
  setFilters(filters: NotificationFilters): Promise<void>;
  reload(): Promise<void>;
  loadMore(): Promise<void>;
  /** Puts a notification the user just produced (a replay) into the list without waiting for the push. */
  upsert(notification: NotificationView): void;
}

const PAGE = 100;

function fits(n: NotificationView, filters: NotificationFilters): boolean {
  return (
    (filters.outcomes.length === 0 || filters.outcomes.includes(n.outcome)) &&
    (filters.events.length === 0 || (n.event !== null && filters.events.includes(n.event))) &&
    (filters.profileId === null || n.profileId === filters.profileId)
  );
}

export function createNotificationsStore(api: ApiClient) {
  // Answers of an older filter choice are dropped, so a slow page never lands under new filters.
  let generation = 0;
  const store = createStore<NotificationsState>()((set, get) => {
    const fetchPage = async (beforeId: number | null) => {
      const mine = generation;
      const { filters } = get();
      set({ loading: true, error: null });
      try {
        const page = await api.invoke('notifications:list', {
          ...(filters.outcomes.length > 0 ? { outcomes: filters.outcomes } : {}),
          ...(filters.events.length > 0 ? { events: filters.events } : {}),
          ...(filters.profileId !== null ? { profileId: filters.profileId } : {}),
          beforeId,
          limit: PAGE,
        });
        if (mine !== generation) return;
        set((state) => {
          const seen = new Set(beforeId === null ? [] : state.items.map((n) => n.id));
          const items = beforeId === null ? page.items : [...state.items, ...page.items.filter((n) => !seen.has(n.id))];
          return { items, nextBeforeId: page.nextBeforeId, loading: false, loaded: true };
        });
      } catch (error) {
        if (mine === generation) set({ loading: false, error: errorMessage(error) });
      }
    };
    return {
      filters: { outcomes: [], events: [], profileId: null },
      items: [],
      nextBeforeId: null,
      loading: false,
      loaded: false,
      error: null,
      async setFilters(filters) {
        generation++;
        set({ filters, items: [], nextBeforeId: null, loaded: false });
        await fetchPage(null);
      },
      async reload() {
        generation++;
        await fetchPage(null);
      },
      async loadMore() {
        const { nextBeforeId, loading } = get();
        if (nextBeforeId === null || loading) return;
        await fetchPage(nextBeforeId);
      },
      upsert(notification) {
        set((state) => place(state, notification));
      },
    };
  });

  api.on('notifications:notification-changed', (notification) => store.setState((state) => place(state, notification)));
  return store;
}

/** Updates a listed notification in place, or inserts a new one that fits the filters in id order. */
function place(state: NotificationsState, notification: NotificationView): Partial<NotificationsState> {
  const index = state.items.findIndex((n) => n.id === notification.id);
  if (index >= 0) {
    const items = state.items.slice();
    items[index] = notification;
    return { items };
  }
  if (!state.loaded || !fits(notification, state.filters)) return {};
  // Older than the loaded window: it will come with the next page.
  const oldest = state.items.at(-1);
  if (oldest && state.nextBeforeId !== null && notification.id < oldest.id) return {};
  const newest = state.items[0];
  const items = newest === undefined || notification.id > newest.id ? [notification, ...state.items] : [...state.items, notification].sort((a, b) => b.id - a.id);
  return { items };
}

export type NotificationsStore = ReturnType<typeof createNotificationsStore>;
