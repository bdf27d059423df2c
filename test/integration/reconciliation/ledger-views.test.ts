// The read APIs the screens rely on: filtered keyset lists and their counts, global search, and the
// code explorer's counts, through the contract on a real core.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payinClaim, startHarness, waitFor, type Harness } from '../verification/harness';
import { applyCreateAnswer, upsertFromCreate } from '../../../src/main/services/payments/apply';

let h: Harness;
let profileId: string;
const ids: Record<string, number> = {};

beforeAll(async () => {
  h = await startHarness();
  profileId = await h.profileId();
  const day = (iso: string) => h.repos(() => new Date(iso));
  const payin = async (iso: string, ref: string, method: string, currency: string, status: number | null, email = 'ana@example.com') => {
    const repos = day(iso);
    const row = await repos.payins.recordRequest({ profileId, kind: 'payin', requestId: ref, method, amount: '5.00', currency, email });
    return status === null ? row : (await applyCreateAnswer(repos.payins, row.id, { gatewayId: `pid-${ref}`, statusCode: status })).record;
  };
  ids.a = (await payin('2025-05-01T10:00:00.000Z', 'order-1001', 'blik', 'PLN', 100)).id;
  ids.b = (await payin('2025-05-02T10:00:00.000Z', 'order-1002', 'credit_card', 'EUR', 302, 'Bob@Example.com')).id;
  ids.c = (await payin('2025-05-03T10:00:00.000Z', 'order-2001', 'blik', 'PLN', 777)).id;
  ids.d = (await payin('2025-05-04T10:00:00.000Z', 'invoice-9', 'crypto', 'USD', null)).id;
  await day('2025-05-02T10:00:00.000Z').payins.noteConflict(ids.b as number, 'test conflict', 'status');
  const payout = async (iso: string, ref: string, method: string, currency: string, statusCode: string) =>
    (await upsertFromCreate(day(iso).payouts, { profileId, merchantReference: ref, method, amount: '9.99', currency, email: 'pay@example.com' }, { gatewayId: `pout-${ref.slice(3)}`, statusCode })).id;
  ids.p = await payout('2025-05-05T10:00:00.000Z', 'po-77', 'fps', 'GBP', 'P100');
  // Two more, so that each payout count below tells rows apart.
  await payout('2025-05-06T10:00:00.000Z', 'po-88', 'open_banking', 'EUR', 'P200');
  await payout('2025-05-07T10:00:00.000Z', 'po-89', 'fps', 'GBP', 'C501');
});
afterAll(async () => {
  await h?.close();
});

describe('payins:list and payouts:list', () => {
  it('filters by status, category, method, currency, dates and mismatch, newest first', async () => {
    const all = await h.call('payins:list', { profileId });
    expect(all.items.map((p) => p.id)).toEqual([ids.d, ids.c, ids.b, ids.a]);
    expect((await h.call('payins:list', { statusCodes: ['100', '302'] })).items.map((p) => p.id)).toEqual([ids.b, ids.a]);
    expect((await h.call('payins:list', { categories: ['decline'] })).items.map((p) => p.id)).toEqual([ids.b]);
    expect((await h.call('payins:list', { methods: ['blik'], currencies: ['pln'] })).items.map((p) => p.id)).toEqual([ids.c, ids.a]);
    expect((await h.call('payins:list', { createdFrom: '2025-05-02', createdTo: '2025-05-04' })).items.map((p) => p.id)).toEqual([ids.c, ids.b]);
    expect((await h.call('payins:list', { hasMismatch: true })).items.map((p) => [p.id, p.mismatch])).toEqual([[ids.b, true]]);
  });

  it('searches by a prefix of the reference, the gateway id or the e-mail (any case)', async () => {
    expect((await h.call('payins:list', { search: 'order-100' })).items.map((p) => p.id)).toEqual([ids.b, ids.a]);
    expect((await h.call('payins:list', { search: 'pid-order-2' })).items.map((p) => p.id)).toEqual([ids.c]);
    expect((await h.call('payins:list', { search: 'bob@' })).items.map((p) => p.id)).toEqual([ids.b]);
    expect((await h.call('payouts:list', { search: 'po-7' })).items.map((p) => p.payoutId)).toEqual(['pout-77']);
  });

  it('pages with a cursor and names bad input', async () => {
    const first = await h.call('payins:list', { limit: 3 });
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await h.call('payins:list', { limit: 3, cursor: first.nextCursor });
    expect(second.nextCursor).toBeNull();
    expect([...first.items, ...second.items].map((p) => p.id)).toEqual([ids.d, ids.c, ids.b, ids.a]);
    expect((await h.failure('payins:list', { cursor: 'garbage' })).fields).toHaveProperty('cursor');
    // Every list that pages by a cursor refuses a bad one as the caller's mistake, never as a crash.
    const garbage = '4111 1111 1111 1111';
    for (const [channel, input] of [
      ['notices:list', {}],
      ['statements:breaks', { queue: 'unsettled' }],
      ['statements:settlements', {}],
    ] as const) {
      expect(await h.failure(channel, { ...input, cursor: garbage }), channel).toMatchObject({ code: 'invalid_input', fields: { cursor: expect.any(String) } });
    }
    expect((await h.failure('payins:list', { currencies: ['EURO'] })).fields).toEqual({ 'currencies.0': 'A 3-letter currency code.' });
    expect((await h.failure('payins:list', { createdFrom: 'yesterday' })).fields).toHaveProperty('createdFrom');
    expect((await h.failure('payouts:list', { limit: 0 })).fields).toHaveProperty('limit');
  });
});

/** A count depends on the filters alone: anything else is refused, naming the key. */
async function refusesAllButFilters(channel: 'payins:count' | 'payouts:count') {
  for (const [key, value] of [['cursor', 'abc'], ['limit', 3], ['sort', 'oldest']] as const) {
    const refused = await h.failure(channel, { [key]: value });
    expect(refused.code).toBe('invalid_input');
    expect(Object.values(refused.fields ?? {}).join(' ')).toContain(`"${key}"`);
  }
  expect((await h.failure(channel, { createdFrom: 'yesterday' })).fields).toHaveProperty('createdFrom');
}

describe('payins:count', () => {
  it('answers a pay-ins page without counting, and counts the same filters apart', async () => {
    const page = await h.call('payins:list', { limit: 3 });
    expect(Object.keys(page).sort()).toEqual(['items', 'nextCursor']);
    expect(await h.call('payins:count', {})).toEqual({ total: 4 });
    expect(await h.call('payins:count', { profileId })).toEqual({ total: 4 });
    expect(await h.call('payins:count', { statusCodes: ['100', '302'] })).toEqual({ total: 2 });
    expect(await h.call('payins:count', { methods: ['blik'], currencies: ['pln'], createdFrom: '2025-05-02' })).toEqual({ total: 1 });
    expect(await h.call('payins:count', { search: 'order-100' })).toEqual({ total: 2 });
    expect(await h.call('payins:count', { hasMismatch: true })).toEqual({ total: 1 });
  });

  it('takes the filters only: a position, a size or an order is refused by name', () => refusesAllButFilters('payins:count'));
});

describe('payouts:count', () => {
  it('answers a payouts page without counting, and counts the same filters apart', async () => {
    const page = await h.call('payouts:list', { limit: 2 });
    expect(Object.keys(page).sort()).toEqual(['items', 'nextCursor']);
    expect(await h.call('payouts:count', {})).toEqual({ total: 3 });
    expect(await h.call('payouts:count', { profileId })).toEqual({ total: 3 });
    expect(await h.call('payouts:count', { statusCodes: ['P100', 'C501'] })).toEqual({ total: 2 });
    expect(await h.call('payouts:count', { categories: ['success'] })).toEqual({ total: 1 });
    expect(await h.call('payouts:count', { methods: ['fps'], currencies: ['gbp'], createdFrom: '2025-05-06' })).toEqual({ total: 1 });
    expect(await h.call('payouts:count', { createdTo: '2025-05-06' })).toEqual({ total: 1 });
    expect(await h.call('payouts:count', { final: true })).toEqual({ total: 2 });
    expect(await h.call('payouts:count', { search: 'po-8' })).toEqual({ total: 2 });
  });

  it('takes the filters only: a position, a size or an order is refused by name', () => refusesAllButFilters('payouts:count'));
});

describe('search:lookup', () => {
  it('finds a transaction by request_id, payin_id, merchantReference, payout_id or e-mail', async () => {
    const one = async (query: string) => (await h.call('search:lookup', { query })).matches.map((m) => [m.subject, m.id, m.matchedOn]);
    expect(await one('order-1001')).toEqual([['payin', ids.a, 'request_id']]);
    expect(await one('pid-order-1002')).toEqual([['payin', ids.b, 'payin_id']]);
    expect(await one('po-77')).toEqual([['payout', ids.p, 'merchantReference']]);
    expect(await one('pout-77')).toEqual([['payout', ids.p, 'payout_id']]);
    expect(await one('ANA@example.com')).toEqual([
      ['payin', ids.d, 'email'],
      ['payin', ids.c, 'email'],
      ['payin', ids.a, 'email'],
    ]);
    expect(await one('nothing-like-it')).toEqual([]);
    expect((await h.failure('search:lookup', { query: '   ' })).fields).toHaveProperty('query');
  });

  it('also finds the notifications kept as orphans, by gateway id or merchant reference, and only those', async () => {
    await h.notify(payinClaim('pid-ghost-1', 'order-ghost-1', 200));
    await h.notify(`{"event":"v2_payout_notification","status":"success","status_code":"P200","payout_id":"pout-ghost-2","merchantReference":"po-ghost-2","amount":"9.99","currency":"GBP"}`);
    await h.notify(payinClaim('pid-order-1001', 'order-1001', 100)); // about a pay-in the ledger holds: applied, not an orphan
    const lookup = (query: string) => h.call('search:lookup', { query });
    const orphans = async (query: string) => (await lookup(query)).orphans.map((o) => [o.matchedOn, o.transactionRef, o.requestRef, o.statusCode]);
    await waitFor(() => orphans('pid-ghost-1'), (found) => found.length === 1, 'the pay-in orphan');
    expect(await orphans('pid-ghost-1')).toEqual([['payin_id', 'pid-ghost-1', 'order-ghost-1', '200']]);
    expect(await orphans('order-ghost-1')).toEqual([['request_id', 'pid-ghost-1', 'order-ghost-1', '200']]);
    await waitFor(() => orphans('pout-ghost-2'), (found) => found.length === 1, 'the payout orphan');
    expect(await orphans('po-ghost-2')).toEqual([['merchantReference', 'pout-ghost-2', 'po-ghost-2', 'P200']]);
    const known = await lookup('order-1001');
    expect(known.orphans).toEqual([]);
    expect(known.matches.map((m) => m.id)).toEqual([ids.a]);
    // The orphan's id opens it in the webhook inspector.
    const [ghost] = (await lookup('order-ghost-1')).orphans;
    const inspected = await h.call('notifications:list', { beforeId: (ghost?.id ?? 0) + 1, limit: 1 });
    expect(inspected.items[0]).toMatchObject({ id: ghost?.id, outcome: 'orphan', requestRef: 'order-ghost-1' });
  });
});

describe('codes:usage', () => {
  it('counts ledger rows per code and lists the codes the catalogue does not know', async () => {
    const { codes, unknown } = await h.call('codes:usage');
    expect(codes.find((c) => c.kind === 'payin_status' && c.code === '302')).toMatchObject({ known: true, rows: 1 });
    expect(codes.find((c) => c.kind === 'payout_status' && c.code === 'P100')).toMatchObject({ rows: 1 });
    expect(codes.find((c) => c.kind === 'reason' && c.code === 'RISK_BLOCKED')).toMatchObject({ rows: 0 });
    expect(unknown).toEqual([{ kind: 'payin_status', code: '777', known: false, rows: 1, notifications: 0 }]);
  });
});
