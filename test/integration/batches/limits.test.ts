// Payout limits, enforced in main before any attempt is prepared: a manual payout and batch rows
// over the per-payout maximum or the daily total are refused with a message naming the limit,
// nothing is recorded or sent for them, and every limit change is audited.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { payoutForm, startHarness, waitFor, type Harness } from '../payments/harness';
import { batchRows, gatewayPayoutsByReference, getBatch, uploadBatch } from './helpers';

let h: Harness;
const audit = () => createRepositories(h.core.ledger).audit.list({ limit: 1000 });

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

describe('payout limits', () => {
  it('refuses a manual payout over the per-payout maximum, naming the limit, and records nothing', async () => {
    const view = await h.call('limits:set', { environment: 'any', currency: 'chf', perPayoutMax: '100', dailyMax: null });
    expect(view).toMatchObject({ environment: 'any', currency: 'CHF', perPayoutMax: '100', dailyMax: null, usage: [{ environment: 'local', usedToday: '0' }, { environment: 'live', usedToday: '0' }] });

    const form = { ...payoutForm('open_banking', { reference: `over-${Date.now()}`, amount: '100.01' }), currency: 'CHF' };
    const check = await h.call('limits:check', { currency: 'CHF', amount: '100.01' });
    expect(check).toMatchObject({ ok: false, environment: 'local', checks: [{ kind: 'per_payout', ok: false }] });
    const refused = await h.failure('payouts:create', form);
    expect(refused.code).toBe('conflict');
    expect(refused.message).toContain('Over the per-payout limit for CHF payouts (every environment): 100.01 CHF is more than the maximum of 100.00 CHF');
    expect(refused.fields?.amount).toContain('per-payout limit');
    expect(await h.failure('payouts:get', { merchantReference: form.merchantReference })).toMatchObject({ code: 'not_found' });

    const within = await h.call('payouts:create', { ...form, amount: '100.00', merchantReference: `within-${Date.now()}` });
    expect(within.outcome).toBe('succeeded');
  });

  it('counts the day per environment and refuses the batch rows that would go over the daily total', async () => {
    await h.call('limits:set', { environment: 'local', currency: 'SEK', perPayoutMax: null, dailyMax: '250' });
    // 6 rows of 60.00: four fit (240.00), the fifth and sixth would make 300.00 and are refused.
    const rows = batchRows(6, { prefix: `daily-${Date.now()}`, currency: 'SEK', amount: () => '60.00' });
    const started = await uploadBatch(h.core.dispatch, rows);
    const done = await waitFor(() => getBatch(h.core.dispatch, started.id), (b) => b.state === 'done', 'the batch to finish', 15_000);
    expect(done.counts).toMatchObject({ sent: 4, refused: 2 });
    const items = (await h.call('batches:items', { id: started.id })).items;
    const refusedItems = items.filter((i) => i.state === 'refused');
    expect(refusedItems[0]?.error).toContain('Over the daily limit for SEK payouts (local emulator): 240.00 of 250.00 SEK used today (UTC)');
    expect(refusedItems.every((i) => i.idempotencyKey === null && i.payoutRowId === null)).toBe(true);
    const held = gatewayPayoutsByReference(path.join(h.dataDir, 'emulator.sqlite'));
    for (const item of items) expect(held.get(item.merchantReference) ?? 0).toBe(item.state === 'sent' ? 1 : 0);

    const list = await h.call('limits:list');
    expect(list.limits.find((l) => l.currency === 'SEK')?.usage).toEqual([{ environment: 'local', usedToday: '240' }]);
  });

  it('checks a payout of the given profile or the active one, and refuses an amount that is not a decimal or an unknown profile', async () => {
    const active = (await h.call('profiles:list')).find((p) => p.isActive);
    expect(await h.call('limits:check', { profileId: active?.id ?? '', currency: 'CHF', amount: '100.01' })).toEqual(await h.call('limits:check', { currency: 'CHF', amount: '100.01' }));
    expect(await h.failure('limits:check', { currency: 'CHF', amount: '1e3' })).toMatchObject({ code: 'invalid_input', fields: { amount: 'Must be a decimal number such as 10.50.' } });
    expect(await h.failure('limits:check', { profileId: 'no-such-profile', currency: 'CHF', amount: '1' })).toMatchObject({ code: 'not_found' });
  });

  it('audits every change and pushes the new list', async () => {
    const pushed: unknown[] = [];
    const stop = h.core.events.subscribe((channel, payload) => channel === 'limits:limits-changed' && pushed.push(payload));
    await h.call('limits:set', { environment: 'live', currency: 'NOK', perPayoutMax: '500.5', dailyMax: '1000' });
    await h.call('limits:set', { environment: 'live', currency: 'NOK', perPayoutMax: null, dailyMax: '2000' });
    expect(await h.call('limits:remove', { environment: 'live', currency: 'NOK' })).toEqual({ removed: true });
    expect(await h.call('limits:remove', { environment: 'live', currency: 'NOK' })).toEqual({ removed: false });
    stop();
    expect(pushed).toHaveLength(3);
    const entries = (await audit()).filter((e) => e.subject === 'NOK/live');
    expect(entries.map((e) => e.action)).toEqual(['limits.remove', 'limits.set', 'limits.set']);
    expect(JSON.parse(entries[1]?.details ?? '{}')).toMatchObject({ perPayoutMax: null, dailyMax: '2000', before: { perPayoutMax: '500.5', dailyMax: '1000' } });
    const bad = await h.failure('limits:set', { environment: 'live', currency: 'NOK', perPayoutMax: '0', dailyMax: null });
    expect(bad.fields).toMatchObject({ perPayoutMax: 'Must be greater than 0.' });
  });
});

describe('approval policies, the other rule about payout amounts', () => {
  it('are audited with what they were before and pushed on every change, as the limits are', async () => {
    const pushed: unknown[] = [];
    const stop = h.core.events.subscribe((channel, payload) => channel === 'approvals:policies-changed' && pushed.push(payload));
    await h.call('approvals:set-policy', { environment: 'live', currency: 'dkk', mode: 'threshold', payoutAbove: '100.50', batchAbove: null });
    const view = await h.call('approvals:set-policy', { environment: 'live', currency: 'DKK', mode: 'always', payoutAbove: '5', batchAbove: '5' });
    expect(view).toMatchObject({ environment: 'live', currency: 'DKK', mode: 'always', payoutAbove: null, batchAbove: null, text: 'Live DKK: every payout and every batch needs approval.' });
    expect(await h.call('approvals:remove-policy', { environment: 'live', currency: 'DKK' })).toEqual({ removed: true });
    expect(await h.call('approvals:remove-policy', { environment: 'live', currency: 'DKK' })).toEqual({ removed: false });
    stop();
    expect(pushed).toHaveLength(3);
    const entries = (await audit()).filter((e) => e.subject === 'DKK/live');
    expect(entries.map((e) => e.action)).toEqual(['approvals.policy-remove', 'approvals.policy-set', 'approvals.policy-set']);
    expect(JSON.parse(entries[2]?.details ?? '{}')).toEqual({ environment: 'live', currency: 'DKK', mode: 'threshold', payoutAbove: '100.5', batchAbove: null, text: 'Live DKK: payouts above 100.50 need approval.', before: null });
    expect(JSON.parse(entries[1]?.details ?? '{}')).toMatchObject({ mode: 'always', before: 'Live DKK: payouts above 100.50 need approval.' });
    expect(JSON.parse(entries[0]?.details ?? '{}')).toEqual({ before: 'Live DKK: every payout and every batch needs approval.' });
  });
});
