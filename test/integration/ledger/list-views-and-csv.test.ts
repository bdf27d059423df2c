// What the pay-ins screen relies on beyond plain lists: oldest-first pages, saved filter views
// (kept by main, per subject, surviving a restart) and the CSV export of exactly the filtered list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportPayinsCsv } from '../../../src/main/services/ledger-views/payins-csv';
import { startHarness, type Harness } from '../verification/harness';

let h: Harness;
let profileId: string;
const ids: number[] = [];

beforeAll(async () => {
  h = await startHarness();
  profileId = await h.profileId();
  const rows: [string, string, string, number][] = [
    ['2025-06-01T10:00:00.000Z', 'csv-1', 'blik', 200],
    ['2025-06-02T10:00:00.000Z', 'csv-2', 'credit_card', 302],
    ['2025-06-03T10:00:00.000Z', 'csv-3', 'blik', 302],
    ['2025-06-04T10:00:00.000Z', '=HYPERLINK("x")', 'blik', 302],
  ];
  for (const [at, ref, method, status] of rows) {
    const repos = h.repos(() => new Date(at));
    const row = repos.payins.recordRequest({ profileId, kind: 'payin', requestId: ref, method, amount: '1234.50', currency: 'PLN', email: 'ana@example.com' });
    const reasonCode = ref === 'csv-2' ? 'RISK_BLOCKED' : null;
    ids.push(repos.payins.applyCreateAnswer(row.id, { payinId: `pid-${ref}`, statusCode: status, reasonCode }).record.id);
  }
});
afterAll(async () => {
  await h?.close();
});

describe('payins:list reason filter', () => {
  it('filters by reason code (the code explorer links reasons to the list)', async () => {
    expect((await h.call('payins:list', { reasonCodes: ['RISK_BLOCKED'] })).items.map((p) => p.id)).toEqual([ids[1]]);
    expect(await h.call('payins:count', { reasonCodes: ['RISK_BLOCKED'] })).toEqual({ total: 1 });
    expect(await h.call('payins:count', { reasonCodes: ['NO_SUCH_REASON'] })).toEqual({ total: 0 });
  });
});

describe('payins:list sort', () => {
  it('pages oldest first when asked, with the cursor of that order', async () => {
    const first = await h.call('payins:list', { sort: 'oldest', limit: 3 });
    const second = await h.call('payins:list', { sort: 'oldest', limit: 3, cursor: first.nextCursor });
    expect([...first.items, ...second.items].map((p) => p.id)).toEqual(ids);
    expect(second.nextCursor).toBeNull();
    expect((await h.failure('payins:list', { sort: 'random' })).fields).toHaveProperty('sort');
  });
});

describe('saved views', () => {
  it('saves, replaces by name, lists by name per subject, deletes, and keeps them across a restart', async () => {
    expect(await h.call('views:list', { subject: 'payin' })).toEqual({ views: [] });
    await h.call('views:save', { subject: 'payin', name: 'Risk declines', filters: { statusCodes: ['302'], methods: ['blik'] } });
    await h.call('views:save', { subject: 'payin', name: 'Blik', filters: { methods: ['blik'], currencies: ['pln'], sort: 'oldest' } });
    const replaced = await h.call('views:save', { subject: 'payin', name: 'Risk declines', filters: { statusCodes: ['302'], hasMismatch: true } });
    expect(replaced.views.map((v) => [v.name, v.filters])).toEqual([
      ['Blik', { methods: ['blik'], currencies: ['PLN'], sort: 'oldest' }],
      ['Risk declines', { statusCodes: ['302'], hasMismatch: true }],
    ]);
    expect(await h.call('views:list', { subject: 'payout' })).toEqual({ views: [] });

    await h.restart();
    expect((await h.call('views:list', { subject: 'payin' })).views.map((v) => v.name)).toEqual(['Blik', 'Risk declines']);
    expect((await h.call('views:delete', { subject: 'payin', name: 'Blik' })).views.map((v) => v.name)).toEqual(['Risk declines']);
    // Preferences still read as before: the views rows do not leak into settings.
    expect(await h.call('settings:get')).toEqual({ theme: 'auto', reconciliationPendingMinutes: 60 });
  });

  it('names the field when the input is wrong or the view does not exist', async () => {
    expect((await h.failure('views:save', { subject: 'payin', name: '  ', filters: {} })).fields).toHaveProperty('name');
    expect((await h.failure('views:save', { subject: 'payin', name: 'x', filters: { cursor: 'abc' } })).fields).toHaveProperty('filters');
    expect((await h.failure('views:save', { subject: 'payin', name: 'x', filters: { createdFrom: 'soon' } })).fields).toHaveProperty('filters.createdFrom');
    expect(await h.failure('views:delete', { subject: 'payin', name: 'never saved' })).toMatchObject({ code: 'not_found', fields: { name: expect.any(String) } });
  });
});

describe('settings: the reconciliation threshold', () => {
  it('keeps the last threshold across a restart, refuses one out of range by name, and pushes the change', async () => {
    expect((await h.call('settings:get')).reconciliationPendingMinutes).toBe(60);
    expect(await h.call('settings:update', { reconciliationPendingMinutes: 15 })).toEqual({ theme: 'auto', reconciliationPendingMinutes: 15 });
    expect(h.pushesOf('settings:settings-changed').at(-1)).toEqual({ theme: 'auto', reconciliationPendingMinutes: 15 });
    for (const bad of [-1, 525_601]) expect((await h.failure('settings:update', { reconciliationPendingMinutes: bad })).fields).toHaveProperty('reconciliationPendingMinutes');
    await h.restart();
    expect((await h.call('settings:get')).reconciliationPendingMinutes).toBe(15);
    await h.call('settings:update', { reconciliationPendingMinutes: 60 });
  });
});

describe('payins:export-csv', () => {
  it('exports every row of the filtered list in its order, formula-safe', async () => {
    const file = await h.call('payins:export-csv', { statusCodes: ['302'], methods: ['blik'], sort: 'oldest' });
    expect(file).toMatchObject({ rows: 2, truncated: false, filename: expect.stringMatching(/^paydesk-payins-.*\.csv$/) });
    const lines = file.csv.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'created_at,request_id,payin_id,kind,method,amount,currency,email,status_code,status_meaning,status_category,final,reason_code,last_notified_status,last_verified_status,verification,mismatch,profile_id',
    );
    expect(lines.slice(1).map((l) => l.split(',')[1])).toEqual(['csv-3', `"'=HYPERLINK(""x"")"`]);
    expect(lines[1]).toContain(',1234.50,PLN,');
    expect(lines[1]).toContain(',302,Declined due to risk decision,decline,true,');
  });

  it('pages through more rows than one page and stops at the cap, saying so', async () => {
    const repos = h.repos(() => new Date('2025-07-01T00:00:00.000Z'));
    for (let i = 0; i < 620; i++) repos.payins.recordRequest({ profileId, kind: 'payin', requestId: `bulk-${i}`, method: 'crypto', amount: '0.0000000001', currency: 'BTC', email: 'bulk@example.com' });
    const all = exportPayinsCsv({ repos, now: () => new Date() }, { methods: ['crypto'] });
    expect(all).toMatchObject({ rows: 620, truncated: false });
    expect(all.csv.trimEnd().split('\r\n')).toHaveLength(621);
    expect(all.csv).toContain(',0.0000000001,BTC,');
    expect(exportPayinsCsv({ repos, now: () => new Date() }, { methods: ['crypto'] }, 620)).toMatchObject({ rows: 620, truncated: false });
    const capped = exportPayinsCsv({ repos, now: () => new Date() }, { methods: ['crypto'] }, 501);
    expect(capped).toMatchObject({ rows: 501, truncated: true });
    expect(capped.csv.trimEnd().split('\r\n')).toHaveLength(502);
  });
});
