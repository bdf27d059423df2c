// What the pay-ins and payouts screens rely on beyond plain lists: oldest-first pages, saved filter
// views (kept by main, per subject, surviving a restart) and the CSV export of exactly the filtered list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYINS_CSV, PAYOUTS_CSV, TransactionsCsvExport } from '../../../src/main/services/ledger-views/transactions-csv';
import { serviceHarness, type ServiceHarness } from '../../helpers/service-harness';
import { applyCreateAnswer } from '../../../src/main/services/payments/apply';

let h: ServiceHarness;
let profileId: string;
const ids: number[] = [];

beforeAll(async () => {
  h = await serviceHarness();
  profileId = h.profile.id;
  const rows: [string, string, string, number][] = [
    ['2025-06-01T10:00:00.000Z', 'csv-1', 'blik', 200],
    ['2025-06-02T10:00:00.000Z', 'csv-2', 'credit_card', 302],
    ['2025-06-03T10:00:00.000Z', 'csv-3', 'blik', 302],
    ['2025-06-04T10:00:00.000Z', '=HYPERLINK("x")', 'blik', 302],
  ];
  for (const [at, ref, method, status] of rows) {
    const repos = h.reposAt(() => new Date(at));
    const row = await repos.payins.recordRequest({ profileId, kind: 'payin', requestId: ref, method, amount: '1234.50', currency: 'PLN', email: 'ana@example.com' });
    const reasonCode = ref === 'csv-2' ? 'RISK_BLOCKED' : null;
    ids.push((await applyCreateAnswer(repos.payins, row.id, { gatewayId: `pid-${ref}`, statusCode: status, reasonCode })).record.id);
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
      'created_at,request_id,payin_id,kind,method,amount,currency,email,card_brand,card,card_expiry,status_code,status_meaning,status_category,final,reason_code,last_notified_status,last_verified_status,verification,mismatch,profile_id',
    );
    expect(lines.slice(1).map((l) => l.split(',')[1])).toEqual(['csv-3', `"'=HYPERLINK(""x"")"`]);
    expect(lines[1]).toContain(',1234.50,PLN,');
    expect(lines[1]).toContain(',302,Declined due to risk decision,decline,true,');
  });

  it('pages through more rows than one page and stops at the cap, saying so', async () => {
    const repos = h.reposAt(() => new Date('2025-07-01T00:00:00.000Z'));
    for (let i = 0; i < 620; i++) await repos.payins.recordRequest({ profileId, kind: 'payin', requestId: `bulk-${i}`, method: 'crypto', amount: '0.0000000001', currency: 'BTC', email: 'bulk@example.com' });
    const exporter = new TransactionsCsvExport({ repos, now: () => new Date() });
    const all = await exporter.export(PAYINS_CSV, { methods: ['crypto'] });
    expect(all).toMatchObject({ rows: 620, truncated: false });
    expect(all.csv.trimEnd().split('\r\n')).toHaveLength(621);
    expect(all.csv).toContain(',0.0000000001,BTC,');
    expect(await exporter.export(PAYINS_CSV, { methods: ['crypto'] }, 620)).toMatchObject({ rows: 620, truncated: false });
    const capped = await exporter.export(PAYINS_CSV, { methods: ['crypto'] }, 501);
    expect(capped).toMatchObject({ rows: 501, truncated: true });
    expect(capped.csv.trimEnd().split('\r\n')).toHaveLength(502);
  });
});

describe('payouts:export-csv', () => {
  const PAN_LIKE_REFERENCE = '4111111111111111';
  let payouts: number[];

  beforeAll(async () => {
    const rows: { at: string; ref: string; method: string; amount: string; currency: string; email: string; status: string; card?: true }[] = [
      { at: '2025-08-01T09:00:00.000Z', ref: 'po-1', method: 'open_banking', amount: '15.70', currency: 'EUR', email: 'ana@example.com', status: 'P200' },
      { at: '2025-08-02T09:00:00.000Z', ref: '=cmd|"/c calc"!A1', method: 'crypto', amount: '0.0000000001', currency: 'BTC', email: '+sum(1)@example.com', status: 'P200' },
      { at: '2025-08-03T09:00:00.000Z', ref: PAN_LIKE_REFERENCE, method: 'credit_card', amount: '1000000.00', currency: 'EUR', email: 'card 4111 1111 1111 1111@example.com', status: 'P200', card: true },
      { at: '2025-08-04T09:00:00.000Z', ref: 'po-declined', method: 'open_banking', amount: '99.99', currency: 'EUR', email: 'ana@example.com', status: 'C405' },
      { at: '2025-08-05T09:00:00.000Z', ref: 'po-gbp', method: 'fps', amount: '12.30', currency: 'GBP', email: 'ana@example.com', status: 'P200' },
    ];
    payouts = [];
    for (const r of rows) {
      const repos = h.reposAt(() => new Date(r.at));
      const card = r.card ? { brand: 'visa', bin: '411111', last4: '1111', expMonth: '12', expYear: '2030' } : null;
      const row = await repos.payouts.recordRequest({ profileId, merchantReference: r.ref, method: r.method, amount: r.amount, currency: r.currency, email: r.email, card });
      payouts.push((await applyCreateAnswer(repos.payouts, row.id, { gatewayId: `payout-${row.id}`, statusCode: r.status })).record.id);
    }
  });

  it('exports exactly the filtered payouts in their order, amounts and ids as the ledger holds them, formula-safe', async () => {
    const file = await h.call('payouts:export-csv', { statusCodes: ['P200'], currencies: ['EUR', 'BTC'], sort: 'oldest' });
    expect(file).toMatchObject({ rows: 3, truncated: false, filename: expect.stringMatching(/^paydesk-payouts-.*\.csv$/) });
    const [header, ...lines] = file.csv.trimEnd().split('\r\n');
    expect(header).toBe(
      'created_at,merchantReference,payout_id,method,amount,currency,email,card_brand,card,card_expiry,status_code,status_meaning,status_category,final,reason_code,last_notified_status,last_verified_status,verification,mismatch,profile_id',
    );
    // The declined one (status filter) and the GBP one (currency filter) are not in the file.
    expect(lines).toEqual([
      `2025-08-01T09:00:00.000Z,po-1,payout-${payouts[0]},open_banking,15.70,EUR,ana@example.com,,,,P200,Payout succeeded,success,true,,,,unverified,false,${profileId}`,
      `2025-08-02T09:00:00.000Z,"'=cmd|""/c calc""!A1",payout-${payouts[1]},crypto,0.0000000001,BTC,'+sum(1)@example.com,,,,P200,Payout succeeded,success,true,,,,unverified,false,${profileId}`,
      `2025-08-03T09:00:00.000Z,${PAN_LIKE_REFERENCE},payout-${payouts[2]},credit_card,1000000.00,EUR,card 411111******1111@example.com,visa,411111******1111,12/2030,P200,Payout succeeded,success,true,,,,unverified,false,${profileId}`,
    ]);
  });

  it('names the field of a bad filter and pages past one page like the pay-ins export', async () => {
    expect((await h.failure('payouts:export-csv', { createdFrom: 'soon' })).fields).toHaveProperty('createdFrom');
    expect((await h.failure('payouts:export-csv', { sort: 'random' })).fields).toHaveProperty('sort');
    const repos = h.reposAt(() => new Date('2025-09-01T00:00:00.000Z'));
    for (let i = 0; i < 510; i++) await repos.payouts.recordRequest({ profileId, merchantReference: `bulk-po-${i}`, method: 'fps', amount: '0.01', currency: 'GBP', email: 'bulk@example.com' });
    const all = await h.call('payouts:export-csv', { currencies: ['GBP'] });
    expect(all).toMatchObject({ rows: 511, truncated: false });
    const capped = await new TransactionsCsvExport({ repos, now: () => new Date() }).export(PAYOUTS_CSV, { currencies: ['GBP'] }, 505);
    expect(capped).toMatchObject({ rows: 505, truncated: true });
    expect(capped.csv.trimEnd().split('\r\n')).toHaveLength(506);
  });
});
