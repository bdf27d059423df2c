// Fakes shared by the tests of the pay-ins and payouts lists: the fields both transaction views
// carry and a view of each, an api whose list and count answers come from functions (it records
// the calls, and the test sends the pushes), a promise the test settles when it wants, and a pause
// longer than the stores' push batching.
import type { PayinView, PayoutView, PushChannel } from '../../../src/shared/contract';
import type { ApiClient } from '../../../src/renderer/api/client';

type SharedFields = Omit<PayinView & PayoutView, 'kind' | 'requestId' | 'payinId' | 'redirectUrl' | 'merchantReference' | 'payoutId' | 'method' | 'amount' | 'currency' | 'email' | 'statusCode' | 'statusMeaning'>;

/** A pending transaction (nothing notified, nothing read) created 2026-03-01 10:00 UTC, with no attempt. */
const sharedViewFields: SharedFields = {
  id: 1,
  profileId: 'p',
  statusKnown: true,
  statusCategory: 'pending',
  final: false,
  reasonCode: null,
  reasonKnown: true,
  statusChangedAt: null,
  gatewayCreatedAt: null,
  lastNotifiedStatus: null,
  lastNotifiedAt: null,
  lastVerifiedStatus: null,
  lastVerifiedAt: null,
  claimState: null,
  conflict: null,
  statusConflict: null,
  factsConflict: null,
  mismatch: false,
  verification: 'pending',
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-01T10:00:00.000Z',
  attemptId: null,
  attempt: null,
  notificationsUnreachable: null,
  card: null,
};

/** A pending blik pay-in (the e-mail in mixed case, for the search's any-case match). */
export const payinView = (over: Partial<PayinView>): PayinView => ({
  ...sharedViewFields,
  method: 'blik',
  amount: '10.50',
  currency: 'PLN',
  email: 'Ana@Example.com',
  statusCode: '100',
  statusMeaning: 'Pending redirect',
  kind: 'payin',
  requestId: 'order-1',
  payinId: 'pid-1',
  redirectUrl: null,
  ...over,
});

/** An FPS payout just initiated. */
export const payoutView = (over: Partial<PayoutView>): PayoutView => ({
  ...sharedViewFields,
  method: 'fps',
  amount: '10.12',
  currency: 'GBP',
  email: 'bob@example.com',
  statusCode: 'P100',
  statusMeaning: 'Payout initiated',
  merchantReference: 'po-1',
  payoutId: 'pout-1',
  ...over,
});

export type Page<T> = { items: T[]; nextCursor: string | null };
type Input = Record<string, unknown>;

export function fakeListApi<T>(
  channels: { list: string; count: string; push: PushChannel },
  list: (input: Input) => Page<T> | Promise<Page<T>>,
  count: (input: Input) => number | Promise<number> = () => 1,
) {
  const listeners: ((payload: unknown) => void)[] = [];
  const calls: { channel: string; input: Input }[] = [];
  const api = {
    invoke: async (channel: string, input: Input) => {
      calls.push({ channel, input });
      if (channel === channels.list) return list(input);
      if (channel === channels.count) return { total: await count(input) };
      throw new Error(channel);
    },
    on: (channel: PushChannel, listener: (payload: unknown) => void) => {
      if (channel === channels.push) listeners.push(listener);
      return () => {};
    },
  } as unknown as ApiClient;
  const push = (row: T) => listeners.forEach((listener) => listener(row));
  return { api, push, calls };
}

export function gate<T>() {
  let open!: (value: T) => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<T>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

export const settle = () => new Promise((resolve) => setTimeout(resolve, 80));
