// The webhook inspector's list: a keyset list store (stores/keyset-list.ts) paged by notification
// id, newest first, under filters that combine (outcome, event, status, profile, reference search),
// its total counted apart once the first page is shown, kept live by the notification push: a new
// one that fits the filters appears at the top, a changed one (applied, verified, contradicted) is
// updated in place, or leaves when its new outcome no longer fits.
import type { NotificationFilters, NotificationOutcomeView, NotificationSummary } from '../../../shared/contract';
import type { ApiClient } from '../../api/client';
import { createKeysetListStore, type KeysetListStore } from '../../stores/keyset-list';

export interface NotificationQuery {
  outcomes: NotificationOutcomeView[];
  events: string[];
  /** status_code as the notification carries it (200, P200). */
  statusCodes: string[];
  /** One profile's notifications (a sandbox apart from live, say); null: every profile. */
  profileId: string | null;
  /** The start of payin_id / payout_id or request_id / merchantReference, as written; '' for none. */
  search: string;
}

export const ALL_NOTIFICATIONS: NotificationQuery = { outcomes: [], events: [], statusCodes: [], profileId: null, search: '' };

const PAGE = 100;

/** The query as the contract's filters: only those given. */
export function notificationFilters(query: NotificationQuery): NotificationFilters {
  return {
    ...(query.outcomes.length > 0 ? { outcomes: query.outcomes } : {}),
    ...(query.events.length > 0 ? { events: query.events } : {}),
    ...(query.statusCodes.length > 0 ? { statusCodes: query.statusCodes } : {}),
    ...(query.profileId !== null ? { profileId: query.profileId } : {}),
    ...(query.search !== '' ? { search: query.search } : {}),
  };
}

export const isFiltered = (query: NotificationQuery) => Object.keys(notificationFilters(query)).length > 0;

/** Whether a notification belongs in the list: the rules main applies (notifications repository). */
export function matchesNotification(query: NotificationQuery, n: NotificationSummary): boolean {
  return (
    (query.outcomes.length === 0 || query.outcomes.includes(n.outcome)) &&
    (query.events.length === 0 || (n.event !== null && query.events.includes(n.event))) &&
    (query.statusCodes.length === 0 || (n.statusCode !== null && query.statusCodes.includes(n.statusCode))) &&
    (query.profileId === null || n.profileId === query.profileId) &&
    (query.search === '' || [n.transactionRef, n.requestRef].some((reference) => reference?.startsWith(query.search)))
  );
}

export function createNotificationsStore(api: ApiClient) {
  return createKeysetListStore<NotificationQuery, NotificationSummary, number>({
    list: async (query, beforeId) => {
      const page = await api.invoke('notifications:list', { ...notificationFilters(query), beforeId, limit: PAGE });
      return { items: page.items, next: page.nextBeforeId };
    },
    count: async (query) => (await api.invoke('notifications:count', notificationFilters(query))).total,
    push: (listener) => api.on('notifications:notification-changed', listener),
    matches: matchesNotification,
    key: (n) => n.id,
    compare: (_query, a, b) => b.id - a.id,
    // A summary processed before the one held (a push that waited while a later page was read) is not put back over it.
    fresher: (next, held) => held.processedAt === null || (next.processedAt !== null && next.processedAt >= held.processedAt),
    // Only the outcome changes after a notification is stored (pending → applied, an orphan applied later).
    volatile: (query) => query.outcomes.length > 0,
  });
}

export type NotificationsStore = KeysetListStore<NotificationQuery, NotificationSummary, number>;
