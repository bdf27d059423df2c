// The webhook inspector's list store: filters go to main as they are, and a pushed notification
// joins the list only when it fits them (here: another profile's stays out).
import { describe, expect, it } from 'vitest';
// The renderer's global Window.paydesk declaration, which the api client's types rely on.
import type {} from '../../../src/renderer/env';
import type { NotificationView, PushChannel } from '../../../src/shared/contract';
import type { ApiClient } from '../../../src/renderer/api/client';
import { createNotificationsStore } from '../../../src/renderer/features/webhooks/notifications-store';

const notification = (over: Partial<NotificationView>): NotificationView => ({
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
  body: '{}',
  bodyRedacted: false,
  headers: [],
  ...over,
});

function fakeApi(items: NotificationView[]) {
  const calls: Record<string, unknown>[] = [];
  let listener: ((payload: unknown) => void) | undefined;
  const api = {
    invoke: async (channel: string, input: Record<string, unknown>) => {
      if (channel !== 'notifications:list') throw new Error(channel);
      calls.push(input);
      return { items: items.filter((n) => input.profileId === undefined || n.profileId === input.profileId), nextBeforeId: null };
    },
    on: (channel: PushChannel, l: (payload: unknown) => void) => {
      if (channel === 'notifications:notification-changed') listener = l;
      return () => {};
    },
  } as unknown as ApiClient;
  return { api, calls, push: (n: NotificationView) => listener?.(n) };
}

describe('webhook inspector store', () => {
  it('asks main for one profile’s notifications and keeps another profile’s pushes out', async () => {
    const { api, calls, push } = fakeApi([notification({ id: 2, profileId: 'sandbox' }), notification({ id: 1 })]);
    const store = createNotificationsStore(api);
    await store.getState().setFilters({ outcomes: [], events: [], profileId: 'sandbox' });
    expect(calls.at(-1)).toEqual({ profileId: 'sandbox', beforeId: null, limit: 100 });
    expect(store.getState().items.map((n) => n.id)).toEqual([2]);

    push(notification({ id: 3, profileId: 'live' }));
    push(notification({ id: 4, profileId: 'sandbox' }));
    expect(store.getState().items.map((n) => n.id)).toEqual([4, 2]);

    await store.getState().setFilters({ outcomes: [], events: [], profileId: null });
    expect(calls.at(-1)).toEqual({ beforeId: null, limit: 100 });
    expect(store.getState().items.map((n) => n.id)).toEqual([2, 1]);
  });
});
