// The webhook inspector shows its total and finds notifications by payin_id,
// payout_id, request_id, merchantReference (the start of one, as written) and status, every
// filter combining with the others. Real core, real emulator and listener over HTTP, real SQLite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NotificationFilters, NotificationSummary, PayinView, PayoutView } from '../../../src/shared/contract';
import { payinClaim, payinForm, payoutForm, startHarness, unique, waitFor, type Harness } from './harness';

let h: Harness;
let payin: PayinView;
let payout: PayoutView;
const orphanPrefix = unique('orphan');

/** Every page of the list under these filters (two rows a page, so paging is part of it), and its total. */
async function listed(filters: NotificationFilters): Promise<{ items: NotificationSummary[]; total: number }> {
  const items: NotificationSummary[] = [];
  let beforeId: number | null = null;
  do {
    const page: { items: NotificationSummary[]; nextBeforeId: number | null } = await h.call('notifications:list', { ...filters, beforeId, limit: 2 });
    items.push(...page.items);
    beforeId = page.nextBeforeId;
  } while (beforeId !== null);
  const { total } = await h.call('notifications:count', filters);
  return { items, total };
}

beforeAll(async () => {
  h = await startHarness();
  const createdPayin = await h.call('payins:create', payinForm({ email: 'ana+s200@example.com', requestId: unique('search-in') }));
  const createdPayout = await h.call('payouts:create', payoutForm({ email: 'bob+sP200@example.com', reference: unique('search-out') }));
  if (!createdPayin.payin || !createdPayout.payout) throw new Error('no pay-in or payout created');
  payin = createdPayin.payin;
  // Two orphans (the ledger knows neither pay-in), one of them declined, and one body that is no JSON.
  for (const [n, status] of [[1, 302], [2, 200]] as const) expect((await h.notify(payinClaim(`pid-${orphanPrefix}-${n}`, `${orphanPrefix}-${n}`, status))).status).toBe(200);
  expect((await h.notify('not json')).status).toBe(400);
  const all = await waitFor(
    () => h.call('notifications:list', { limit: 500 }),
    (page) => page.items.length >= 5 && page.items.every((n) => n.outcome !== 'pending') && page.items.some((n) => n.statusCode === 'P200'),
    'the pay-in and payout notifications and the forged ones, processed',
  );
  expect(all.items.map((n) => n.outcome).sort()).toEqual(['applied', 'applied', 'malformed', 'orphan', 'orphan']);
  payout = (await h.call('payouts:get', { merchantReference: createdPayout.payout.merchantReference })).payout;
});
afterAll(async () => {
  await h?.close();
});

describe('webhook inspector search', () => {
  it('finds a transaction’s notifications by each of its references, or by the start of one', async () => {
    const searches: [string, (n: NotificationSummary) => boolean][] = [
      [payin.payinId as string, (n) => n.transactionRef === payin.payinId],
      [payin.requestId, (n) => n.requestRef === payin.requestId],
      [payin.requestId.slice(0, 12), (n) => n.requestRef === payin.requestId],
      [payout.payoutId as string, (n) => n.transactionRef === payout.payoutId],
      [payout.merchantReference, (n) => n.requestRef === payout.merchantReference],
    ];
    for (const [search, names] of searches) {
      const found = await listed({ search });
      expect(found.items.length, search).toBe(1);
      expect(found.items.every(names), search).toBe(true);
      expect(found.total, search).toBe(1);
    }
    expect(await listed({ search: 'no-such-reference' })).toEqual({ items: [], total: 0 });
    // As written: a prefix, not a substring, and the case counts (as in the transaction lists).
    expect((await listed({ search: orphanPrefix.slice(2) })).total).toBe(0);
    expect((await listed({ search: orphanPrefix.toUpperCase() })).total).toBe(0);
  });

  it('combines search, status, event, outcome and profile, and counts what the pages hold', async () => {
    const profileId = await h.profileId();
    const cases: [NotificationFilters, string[]][] = [
      [{ search: orphanPrefix }, [`${orphanPrefix}-1`, `${orphanPrefix}-2`]],
      [{ search: orphanPrefix, statusCodes: ['302'] }, [`${orphanPrefix}-1`]],
      [{ search: orphanPrefix, statusCodes: ['302', '200'], outcomes: ['orphan'], events: ['v2_payin_notification'], profileId }, [`${orphanPrefix}-2`, `${orphanPrefix}-1`]],
      [{ search: orphanPrefix, events: ['v2_payout_notification'] }, []],
      [{ search: orphanPrefix, outcomes: ['applied'] }, []],
      [{ search: orphanPrefix, profileId: 'another-profile' }, []],
      [{ statusCodes: ['P200'] }, [payout.merchantReference]],
      [{ statusCodes: ['200'], outcomes: ['applied'] }, [payin.requestId]],
      [{ statusCodes: ['200'] }, [`${orphanPrefix}-2`, payin.requestId]],
    ];
    for (const [filters, references] of cases) {
      const found = await listed(filters);
      // Which ones, newest first (the pay-in's own notification arrives when the emulator sends it, so sets are compared).
      expect(found.items.map((n) => n.requestRef).sort(), JSON.stringify(filters)).toEqual([...references].sort());
      expect(found.items.map((n) => n.id), JSON.stringify(filters)).toEqual(found.items.map((n) => n.id).sort((a, b) => b - a));
      expect(found.total, JSON.stringify(filters)).toBe(references.length);
    }
    const everything = await listed({});
    expect(everything.total).toBe(5);
    expect(everything.items).toHaveLength(5);
  });

  it('refuses a bad filter by naming it, nothing listed', async () => {
    for (const channel of ['notifications:list', 'notifications:count'] as const) {
      expect((await h.failure(channel, { search: '   ' })).fields).toHaveProperty('search');
      expect((await h.failure(channel, { search: 'x'.repeat(256) })).fields).toHaveProperty('search');
      expect((await h.failure(channel, { statusCodes: [''] })).fields).toHaveProperty(['statusCodes.0']);
      expect((await h.failure(channel, { status: '200' })).code).toBe('invalid_input');
    }
    expect((await h.failure('notifications:count', { beforeId: 3 })).code).toBe('invalid_input');
  });
});
