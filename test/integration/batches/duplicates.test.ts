// Paying the same people twice, through the contract against the embedded emulator, on this run's
// engine: a batch row (or a manual payout) to the same beneficiary account, amount and currency as
// an earlier payout of the window is named with that payout at the check step, refused by main
// unless the person confirmed it on its row, and each confirmation is audited; a batch keeps the
// rows it leaves out, with why, and says so; a reference already used is found when the file is
// checked and refused in words by line; a name lost to the wrong encoding is never sent.
import path from 'node:path';
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchRowForm } from '../../../src/shared/contract';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { payoutForm, startHarness, waitFor, type Harness } from '../payments/harness';
import { gatewayPayoutsByReference, getBatch, ibanEnding3000 } from './helpers';

let h: Harness;
let seq = 0;
const reference = (name: string) => `${name}-${Date.now()}-${++seq}`;
const audit = () => createRepositories(h.core.ledger).audit.list({ limit: 1000 });

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

/** A row (or manual form) paying `amount` EUR to this IBAN. */
const toIban = (iban: string, amount: string, merchantReference?: string): BatchRowForm => {
  const { profileId: _none, ...form } = payoutForm('open_banking', { amount, ...(merchantReference ? { reference: merchantReference } : {}) });
  return { ...form, currency: 'EUR', paymentDetails: { ...form.paymentDetails, iban } };
};

/** A payout already sent to this IBAN (the manual path), and its row. */
async function paid(iban: string, amount = '25.00') {
  const sent = await h.call('payouts:create', { ...toIban(iban, amount, reference('earlier')) });
  expect(sent.outcome).toBe('succeeded');
  return sent.payout!;
}

const spaced = (iban: string) => iban.toLowerCase().replace(/(.{4})/g, '$1 ').trim();

describe('a row that repeats an earlier payout', () => {
  it('is named at the check step with the earlier payout: the same account (written any way), amount and currency within the window', async () => {
    const iban = ibanEnding3000(randomInt(0, 1_000_000));
    const earlier = await paid(iban);
    const check = await h.call('batches:check', {
      items: [
        { line: 2, form: toIban(spaced(iban), '25') },
        { line: 3, form: toIban(iban, '25.01') },
        { line: 4, form: toIban(ibanEnding3000(randomInt(0, 1_000_000)), '25.00') },
        { line: 5, form: toIban(iban, '25.00', earlier.merchantReference) },
      ],
    });
    expect(check.windowDays).toBe(30);
    expect(check.items.map((i) => [i.line, i.duplicates.map((d) => d.merchantReference), i.referenceUsedBy?.merchantReference ?? null])).toEqual([
      [2, [earlier.merchantReference], null],
      [3, [], null],
      [4, [], null],
      [5, [earlier.merchantReference], earlier.merchantReference],
    ]);
    expect(check.items[0]?.duplicates[0]).toMatchObject({ id: earlier.id, amount: '25.00', currency: 'EUR', statusCode: expect.any(String), createdAt: expect.any(String) });

    // Older than the window (set with the limits, audited), or failed for good: not a duplicate.
    const set = await h.call('limits:set-duplicate-window', { days: 7 });
    expect(set.duplicateWindowDays).toBe(7);
    expect((await audit()).find((e) => e.action === 'limits.duplicate_window')?.details).toContain('"days":7');
    await h.core.ledger.run('UPDATE payouts SET created_at = ? WHERE id = ?', [new Date(Date.now() - 8 * 86_400_000).toISOString(), earlier.id]);
    expect((await h.call('batches:check', { items: [{ line: 2, form: toIban(iban, '25.00') }] })).items[0]?.duplicates).toEqual([]);
    await h.call('limits:set-duplicate-window', { days: 30 });
    expect((await h.call('batches:check', { items: [{ line: 2, form: toIban(iban, '25.00') }] })).items[0]?.duplicates).toHaveLength(1);
    await expect(h.failure('limits:set-duplicate-window', { days: 0 })).resolves.toMatchObject({ code: 'invalid_input' });
  });

  it('is refused by main unless confirmed on its row; a confirmed one is sent and audited per row, and left-out rows stay on the record with why', async () => {
    const iban = ibanEnding3000(randomInt(0, 1_000_000));
    const earlier = await paid(iban);
    const other = ibanEnding3000(randomInt(0, 1_000_000));
    // A file of five rows: line 3 has a problem, line 6 repeats the earlier payout and is not confirmed.
    const send = [
      { line: 2, form: toIban(other, '11.00', reference('ok-a')) },
      { line: 4, form: toIban(iban, '25.00', reference('again')) },
      { line: 5, form: toIban(other, '12.00', reference('ok-b')) },
    ];
    const leftOut = [
      { line: 3, reason: 'IBAN: is required' },
      { line: 6, reason: `possible duplicate of ${earlier.merchantReference}, not confirmed` },
    ];
    const draft = await h.call('batches:create', { fileName: 'five.csv', rows: send.length, leftOut: leftOut.length });

    // Not confirmed: the call is refused naming the row, and nothing of it is stored.
    const refused = await h.failure('batches:add-items', { id: draft.id, items: send });
    expect(refused.code).toBe('invalid_input');
    expect(refused.fields).toEqual({ 'items.4.duplicate': expect.stringContaining(`may pay the same people twice: ${earlier.merchantReference} (25.00 EUR,`) });
    expect(refused.message).toContain('line 4, duplicate may pay the same people twice');
    // Confirmed for another payout than the one it repeats: still refused.
    expect((await h.failure('batches:add-items', { id: draft.id, items: send.map((r) => (r.line === 4 ? { ...r, confirmedDuplicateOf: [earlier.id + 1000] } : r)) })).fields).toHaveProperty(['items.4.duplicate']);
    expect(await createRepositories(h.core.ledger).batches.itemCount(draft.id)).toBe(0);

    await h.call('batches:add-items', { id: draft.id, items: send.map((r) => (r.line === 4 ? { ...r, confirmedDuplicateOf: [earlier.id] } : r)) });
    // Every left-out row is stored before the start.
    await expect(h.failure('batches:start', { id: draft.id })).resolves.toMatchObject({ code: 'conflict', message: expect.stringContaining('holds 0 of the 2 rows it leaves out') });
    await expect(h.failure('batches:add-left-out', { id: draft.id, rows: [{ line: 2, reason: 'again' }] })).resolves.toMatchObject({ code: 'invalid_input', message: 'Line 2 is already in batch ' + draft.id + '.' });
    await h.call('batches:add-left-out', { id: draft.id, rows: leftOut });
    const started = await h.call('batches:start', { id: draft.id });
    expect(started).toMatchObject({ declaredRows: 3, leftOut: 2, total: 3 });

    const done = await waitFor(() => getBatch(h.core.dispatch, draft.id), (b) => b.state === 'done', 'the batch to finish', 20_000);
    expect(done.counts.sent).toBe(3);
    expect((await h.call('batches:left-out', { id: draft.id })).items).toEqual(leftOut.sort((a, b) => a.line - b.line));
    // The gateway holds exactly the rows sent; the repeat went only because it was confirmed.
    const held = gatewayPayoutsByReference(path.join(h.dataDir, 'emulator.sqlite'));
    for (const row of send) expect(held.get(row.form.merchantReference!), row.form.merchantReference).toBe(1);

    const entries = await audit();
    const confirmation = entries.filter((e) => e.action === 'payout.duplicate_confirmed' && e.subject === send[1]!.form.merchantReference);
    expect(confirmation).toHaveLength(1);
    expect(confirmation[0]).toMatchObject({ actor: 'user' });
    expect(JSON.parse(confirmation[0]!.details ?? '{}')).toMatchObject({ batchId: draft.id, line: 4, amount: '25.00', currency: 'EUR', destination: 'DE•• … 3000', duplicateOf: [{ id: earlier.id, merchantReference: earlier.merchantReference }] });
    expect(JSON.parse(entries.find((e) => e.action === 'batch.start' && e.subject === `batch:${draft.id}`)?.details ?? '{}')).toMatchObject({ rows: 3, leftOut: 2, confirmedDuplicates: 1 });
  });

  it('in a manual payout: the review names it, and a send without its confirmation is refused', async () => {
    const iban = ibanEnding3000(randomInt(0, 1_000_000));
    const earlier = await paid(iban, '30.00');
    const form = toIban(iban, '30.00');
    const review = await h.call('payouts:review', form);
    expect(review.duplicates.map((d) => d.id)).toEqual([earlier.id]);
    expect(review.duplicateWindowDays).toBe(30);
    const input = { ...form, merchantReference: review.payout.merchantReference, reviewId: review.reviewId, confirmed: true };
    const refused = await h.failure('payouts:create', { ...input, confirmedDuplicateOf: [] });
    expect(refused).toMatchObject({ code: 'conflict', fields: { confirmedDuplicateOf: expect.stringContaining(String(earlier.id)) } });
    expect(refused.message).toContain('may pay the same people twice');
    const again = await h.call('payouts:review', form);
    const sent = await h.call('payouts:create', { ...form, merchantReference: again.payout.merchantReference, reviewId: again.reviewId, confirmed: true, confirmedDuplicateOf: [earlier.id] });
    expect(sent.outcome).toBe('succeeded');
    const entry = (await audit()).find((e) => e.action === 'payout.create' && e.subject === again.payout.merchantReference);
    expect(JSON.parse(entry?.details ?? '{}')).toMatchObject({ confirmedDuplicateOf: [{ id: earlier.id }] });
  });
});

describe('a reference already used', () => {
  it('is found when the file is checked, and main refuses it by line in words, once', async () => {
    const earlier = await paid(ibanEnding3000(randomInt(0, 1_000_000)), '14.00');
    const row = { line: 7, form: toIban(ibanEnding3000(randomInt(0, 1_000_000)), '15.00', earlier.merchantReference) };
    expect((await h.call('batches:check', { items: [row] })).items[0]?.referenceUsedBy).toMatchObject({ id: earlier.id, merchantReference: earlier.merchantReference });
    const draft = await h.call('batches:create', { fileName: 'reused.csv', rows: 1 });
    const refused = await h.failure('batches:add-items', { id: draft.id, items: [row] });
    expect(refused.fields).toEqual({ 'items.7.merchantReference': 'is already used by a payout of this profile: use a new one (or resume that attempt)' });
    expect(refused.message).toBe('The batch rows were not stored (1 problem): line 7, merchantReference is already used by a payout of this profile: use a new one (or resume that attempt).');
  });
});

describe('a name lost to the wrong encoding', () => {
  it('is refused by main in a batch row and in a manual payout, naming the field', async () => {
    const draft = await h.call('batches:create', { fileName: 'mangled.csv', rows: 1 });
    const mangled = toIban(ibanEnding3000(randomInt(0, 1_000_000)), '16.00');
    const row = { line: 2, form: { ...mangled, paymentDetails: { ...mangled.paymentDetails, accountHolder: 'Jos\ufffd M\ufffdller' } } };
    const refused = await h.failure('batches:add-items', { id: draft.id, items: [row] });
    expect(refused.fields).toEqual({ 'items.2.paymentDetails.accountHolder': expect.stringContaining('could not be read') });
    const garbled = await h.failure('payouts:create', { ...mangled, customer: { ...mangled.customer, firstName: 'JosÃ©' } });
    expect(garbled).toMatchObject({ code: 'invalid_input', fields: { 'customer.firstName': expect.stringContaining('looks garbled') } });
    expect(await createRepositories(h.core.ledger).batches.itemCount(draft.id)).toBe(0);
  });
});
