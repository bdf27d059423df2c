// The webhook inspector's list store: filters go to main as they are (list and count alike), a
// pushed notification joins the list only when it fits them, with the same rules main applies
// (search by the start of a reference, status, profile…), and the total moves with it.
import { describe, expect, it } from 'vitest';
// The renderer's global Window.paydesk declaration, which the api client's types rely on.
import type {} from '../../../src/renderer/env';
import type { NotificationSummary, PushChannel } from '../../../src/shared/contract';
import type { ApiClient } from '../../../src/renderer/api/client';
import { ALL_NOTIFICATIONS, createNotificationsStore, matchesNotification, notificationFilters, type NotificationQuery } from '../../../src/renderer/features/webhooks/notifications-store';
import { PUSH_BATCH_MS } from '../../../src/renderer/stores/keyset-list';

const notification = (over: Partial<NotificationSummary>): NotificationSummary => ({
  id: 1,
  profileId: 'live',
  receivedAt: '2026-03-01T10:00:00.000Z',
  sourceAddress: '127.0.0.1:50000',
  event: 'v2_payin_notification',
  transactionRef: 'pid-1',
  requestRef: 'req-1',
  statusCode: '200',
  statusKnown: true,
  outcome: 'applied',
  detail: null,
  payinRowId: 1,
  payoutRowId: null,
  tokenRowId: null,
  processedAt: null,
  answerStatus: 200,
  bodySize: 2,
  bodyTruncated: false,
  rawPrunedAt: null,
  ...over,
});

function fakeApi(items: NotificationSummary[]) {
  const calls: { channel: string; input: Record<string, unknown> }[] = [];
  let listener: ((payload: unknown) => void) | undefined;
  const fits = (input: Record<string, unknown>) => items.filter((n) => input.profileId === undefined || n.profileId === input.profileId);
  const api = {
    invoke: async (channel: string, input: Record<string, unknown>) => {
      calls.push({ channel, input });
      if (channel === 'notifications:list') return { items: fits(input), nextBeforeId: null };
      if (channel === 'notifications:count') return { total: fits(input).length };
      throw new Error(channel);
    },
    on: (channel: PushChannel, l: (payload: unknown) => void) => {
      if (channel === 'notifications:notification-changed') listener = l;
      return () => {};
    },
  } as unknown as ApiClient;
  return { api, calls, push: (n: NotificationSummary) => listener?.(n) };
}

/** Pushes are applied in batches: wait for one to land. */
const batch = () => new Promise((resolve) => setTimeout(resolve, PUSH_BATCH_MS * 2));
const query = (over: Partial<NotificationQuery>): NotificationQuery => ({ ...ALL_NOTIFICATIONS, ...over });

describe('webhook inspector store', () => {
  it('asks main for one profile’s notifications and their total, and keeps another profile’s pushes out', async () => {
    const { api, calls, push } = fakeApi([notification({ id: 2, profileId: 'sandbox' }), notification({ id: 1 })]);
    const store = createNotificationsStore(api);
    await store.getState().show(query({ profileId: 'sandbox' }));
    expect(calls.slice(-2)).toEqual([
      { channel: 'notifications:list', input: { profileId: 'sandbox', beforeId: null, limit: 100 } },
      { channel: 'notifications:count', input: { profileId: 'sandbox' } },
    ]);
    expect(store.getState()).toMatchObject({ total: 1 });
    expect(store.getState().rows.map((n) => n.id)).toEqual([2]);

    push(notification({ id: 3, profileId: 'live' }));
    push(notification({ id: 4, profileId: 'sandbox' }));
    await batch();
    expect(store.getState().rows.map((n) => n.id)).toEqual([4, 2]);
    expect(store.getState().total).toBe(2);

    await store.getState().show(ALL_NOTIFICATIONS);
    expect(calls.at(-2)).toEqual({ channel: 'notifications:list', input: { beforeId: null, limit: 100 } });
    expect(store.getState().rows.map((n) => n.id)).toEqual([2, 1]);
  });

  it('sends only the filters given, search and status included', () => {
    expect(notificationFilters(ALL_NOTIFICATIONS)).toEqual({});
    expect(notificationFilters(query({ search: 'pid-', statusCodes: ['P200'], events: ['v2_payout_notification'], outcomes: ['applied'] }))).toEqual({
      search: 'pid-',
      statusCodes: ['P200'],
      events: ['v2_payout_notification'],
      outcomes: ['applied'],
    });
  });

  it('lets a pushed notification in only when every filter holds, as main decides', () => {
    const n = notification({ transactionRef: 'pid-42', requestRef: 'order-7', statusCode: 'P200', event: 'v2_payout_notification', outcome: 'orphan' });
    const accepted: Partial<NotificationQuery>[] = [{}, { search: 'pid-4' }, { search: 'order-' }, { search: 'order-7' }, { statusCodes: ['200', 'P200'] }, { search: 'pid', statusCodes: ['P200'], events: ['v2_payout_notification'], outcomes: ['orphan'], profileId: 'live' }];
    const refused: Partial<NotificationQuery>[] = [{ search: 'id-42' }, { search: 'PID' }, { search: 'pid-42x' }, { statusCodes: ['200'] }, { search: 'pid', statusCodes: ['C405'] }, { search: 'pid', profileId: 'sandbox' }, { search: 'pid', outcomes: ['applied'] }, { events: ['v2_payin_notification'] }];
    for (const over of accepted) expect(matchesNotification(query(over), n), JSON.stringify(over)).toBe(true);
    for (const over of refused) expect(matchesNotification(query(over), n), JSON.stringify(over)).toBe(false);
    expect(matchesNotification(query({ search: 'pid' }), notification({ transactionRef: null, requestRef: null }))).toBe(false);
    expect(matchesNotification(query({ statusCodes: ['200'] }), notification({ statusCode: null }))).toBe(false);
  });
});

describe('webhook inspector store while a first page loads', () => {
  /** An api whose list answers only when the test says so. */
  function slowApi(page: NotificationSummary[]) {
    let listener: ((payload: unknown) => void) | undefined;
    let answer: (() => void) | undefined;
    const api = {
      invoke: (channel: string) => {
        if (channel === 'notifications:count') return Promise.resolve({ total: page.length });
        if (channel !== 'notifications:list') throw new Error(channel);
        return new Promise((resolve) => (answer = () => resolve({ items: page, nextBeforeId: null })));
      },
      on: (channel: PushChannel, l: (payload: unknown) => void) => {
        if (channel === 'notifications:notification-changed') listener = l;
        return () => {};
      },
    } as unknown as ApiClient;
    return { api, push: (n: NotificationSummary) => listener?.(n), answer: () => answer?.() };
  }

  it('places what was pushed during the load once the page is in, and never puts an older state over a newer one', async () => {
    // The page was read after #3 was applied, before #4 and #5 were stored and #2 contradicted.
    const { api, push, answer } = slowApi([notification({ id: 3, processedAt: '2026-03-01T10:00:03.000Z' }), notification({ id: 2, processedAt: '2026-03-01T10:00:01.000Z' })]);
    const store = createNotificationsStore(api);
    const loading = store.getState().show(ALL_NOTIFICATIONS);
    push(notification({ id: 3, outcome: 'orphan', processedAt: '2026-03-01T10:00:02.000Z' })); // older than the page's #3
    push(notification({ id: 4, processedAt: '2026-03-01T10:00:04.000Z' }));
    push(notification({ id: 2, outcome: 'mismatch', processedAt: '2026-03-01T10:00:05.000Z' }));
    push(notification({ id: 5, outcome: 'malformed', processedAt: null }));
    expect(store.getState().rows).toEqual([]);
    answer();
    await loading;
    await batch();
    expect(store.getState().rows.map((n) => [n.id, n.outcome])).toEqual([
      [5, 'malformed'],
      [4, 'applied'],
      [3, 'applied'],
      [2, 'mismatch'],
    ]);
  });

  it('keeps no pushes while the inspector was never opened', async () => {
    const { api, push } = slowApi([]);
    const store = createNotificationsStore(api);
    push(notification({ id: 7 }));
    await batch();
    expect(store.getState()).toMatchObject({ query: null, rows: [] });
  });
});
