// Tokenization end to end: card data only inside the merchant JWT, the tokenization notification
// becomes a vaulted-token record (brand, first 6 / last 4, expiry, reference), a charge takes the
// CVV every time, and afterwards neither the full card number nor the CVV exists anywhere in the
// ledger or emulator files, nor in any contract response.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenView } from '../../../src/shared/contract';
import { admin, card, cellsContaining, emulatorPayins, filesContaining, localProfileId, sqliteFileCellsContaining, startHarness, TEST_PAN, tokenFormBase, waitFor, type Harness } from './harness';

/** A CVV that appears nowhere else in these tests. */
const CVV = '4729';
let h: Harness;
let profileId: string;
let seq = 0;
const ref = (prefix: string) => `${prefix}-${Date.now()}-${++seq}`;

beforeAll(async () => {
  h = await startHarness();
  profileId = await localProfileId(h);
});

afterAll(async () => {
  await h?.close();
});

const tokenizeForm = (email: string, requestId: string) => ({ ...tokenFormBase(email), ...card, amount: '25.00', consent: true, request_id: requestId });
const chargeForm = (tokenId: number, requestId: string, cvv: string | null = CVV) => ({ ...tokenFormBase('ana+s200@example.com'), amount: '7.99', tokenId, request_id: requestId, ...(cvv === null ? {} : { cardCvv: cvv }) });

describe('tokenization → vaulted token → charge', () => {
  let token: TokenView;

  it('needs the profile\'s JWT key before it can tokenize', async () => {
    const refused = await h.failure('tokens:tokenize', tokenizeForm('ana@example.com', ref('no-key')));
    expect(refused.code).toBe('unavailable');
    expect(refused.message).toMatch(/JWT signing key/);
    await h.call('credentials:generate-key', { profileId, kid: 'tokens-test' });
  });

  it('validates the card claims and the body before signing or sending, naming each field', async () => {
    const before = await emulatorPayins(h.core);
    const refused = await h.failure('tokens:tokenize', { ...tokenizeForm('ana@example.com', ref('bad')), consent: false, cardNum: '4111111111111112', cardExpireMonth: '13', payment_method: 'open_banking' });
    expect(refused.code).toBe('invalid_input');
    expect(Object.keys(refused.fields ?? {}).sort()).toEqual(['cardExpireMonth', 'cardNum', 'consent', 'payment_method']);
    const missing = await h.failure('tokens:tokenize', { ...tokenFormBase('ana@example.com'), amount: '1.00' });
    expect(Object.keys(missing.fields ?? {})).toEqual(expect.arrayContaining(['cardNum', 'cardHolder', 'cardExpireMonth', 'cardExpireYear', 'consent']));
    // A CVV has no place in a tokenization request.
    expect((await h.failure('tokens:tokenize', { ...tokenizeForm('ana@example.com', ref('cvv')), cardCvv: '123' })).code).toBe('invalid_input');
    expect(await emulatorPayins(h.core)).toEqual(before);
  });

  it('tokenizes with the card inside the JWT only, and the notification becomes a masked vaulted token', async () => {
    const requestId = ref('tokenize');
    const result = await h.call('tokens:tokenize', tokenizeForm('ana+s200@example.com', requestId));
    expect(result).toMatchObject({ outcome: 'succeeded', payin: { kind: 'tokenization', statusCode: '100', requestId } });
    // What the ledger kept of the request: no card fields, the JWT redacted.
    const stored = JSON.parse(result.attempt.request) as Record<string, unknown>;
    expect(stored.merchant_jwt).toBe('[redacted]');
    expect(stored).not.toHaveProperty('cardNum');
    expect(stored.consent).toBe(true);

    const tokens = await waitFor(() => h.call('tokens:list', { profileId }), (list) => list.some((t) => t.requestId === requestId), 'the vaulted token');
    token = tokens.find((t) => t.requestId === requestId) as TokenView;
    expect(token).toMatchObject({ brand: 'visa', bin: '411111', last4: '1111', maskedPan: '411111******1111', expMonth: card.cardExpireMonth, expYear: card.cardExpireYear, state: 'active', payinId: result.payin?.payinId });
    expect(token.tokenRef.length).toBeGreaterThan(8);
  });

  it('charges the token with a CVV given for this charge only, to a final 200', async () => {
    const requestId = ref('charge');
    const result = await h.call('tokens:charge', chargeForm(token.id, requestId));
    expect(result).toMatchObject({ outcome: 'succeeded', tries: 1, payin: { kind: 'token_charge', statusCode: '100', amount: '7.99' } });
    const stored = JSON.parse(result.attempt.request) as Record<string, unknown>;
    expect(stored.cardCvv).toBe('[redacted]');
    expect(stored.merchant_jwt).toBe('[redacted]');
    await waitFor(() => h.call('payins:get', { requestId }), (d) => d.payin.lastNotifiedStatus === '200', 'the charge notification');
    expect((await h.call('payins:read-status', { requestId })).payin).toMatchObject({ statusCode: '200', verification: 'verified' });
  });

  it('records on the charge which card paid (the vaulted one), and shows it in search and the CSV export', async () => {
    const requestId = ref('which-card');
    const charged = await h.call('tokens:charge', chargeForm(token.id, requestId));
    const expected = { brand: 'visa', maskedPan: '411111******1111', expMonth: card.cardExpireMonth, expYear: card.cardExpireYear };
    expect(charged.payin?.card).toEqual(expected);
    expect((await h.call('payins:get', { requestId })).payin.card).toEqual(expected);
    expect((await h.call('search:lookup', { query: requestId })).matches).toMatchObject([{ reference: requestId, card: expected }]);
    const csv = await h.call('payins:export-csv', { search: requestId });
    const [header, row] = csv.csv.trimEnd().split('\r\n') as [string, string];
    const cells = Object.fromEntries(header.split(',').map((name, i) => [name, row.split(',')[i]]));
    expect(cells).toMatchObject({ card_brand: 'visa', card: '411111******1111', card_expiry: `${card.cardExpireMonth}/${card.cardExpireYear}` });
    // The tokenization pay-in itself carries the card it vaulted.
    expect((await h.call('payins:get', { requestId: token.requestId ?? '' })).payin.card).toEqual(expected);
  });

  it('asks for the CVV on every charge and refuses unknown tokens, naming the fields', async () => {
    const noCvv = await h.failure('tokens:charge', chargeForm(token.id, ref('no-cvv'), null));
    expect(noCvv.fields).toHaveProperty('cardCvv');
    const badCvv = await h.failure('tokens:charge', chargeForm(token.id, ref('bad-cvv'), '12'));
    expect(badCvv.fields).toHaveProperty('cardCvv');
    const unknown = await h.failure('tokens:charge', chargeForm(999_999, ref('no-token')));
    expect(unknown.fields).toHaveProperty('tokenId');
  });

  it('revokes the vaulted token when the gateway says it is no longer valid', async () => {
    expect((await admin(h.core, `/tokens/${encodeURIComponent(token.tokenRef)}/revoke`, {})).status).toBe(200);
    const result = await h.call('tokens:charge', chargeForm(token.id, ref('revoked')));
    expect(result).toMatchObject({ outcome: 'rejected', gatewayError: { reasonCode: 'INVALID_OR_EXPIRED_TOKEN' } });
    expect((await h.call('tokens:list', { profileId })).find((t) => t.id === token.id)?.state).toBe('revoked');
    expect((await h.failure('tokens:charge', chargeForm(token.id, ref('after-revoke')))).fields).toHaveProperty('tokenId');
  });

  it('leaves no full card number, CVV or merchant JWT in any response or any file of the data directory', async () => {
    const responses = JSON.stringify(h.responses);
    expect(responses).not.toContain(TEST_PAN);
    expect(responses).not.toContain(`"${CVV}"`);
    expect(responses).not.toContain('eyJhbGciOiJFZERTQSIsImtpZCI');

    // Column by column while open (a CVV stored bare in a column of its own has no quotes), in the
    // ledger on its engine and in the emulator's file...
    const emulator = path.join(h.dataDir, 'emulator.sqlite');
    // The search finds what is there, text and bytes alike (the token's reference, in its row and in the notification's body).
    expect(await cellsContaining(h.core.ledger, token.tokenRef)).toEqual(expect.arrayContaining(['card_tokens.token_ref', 'notifications.body']));
    for (const needle of [TEST_PAN, CVV, 'eyJhbGciOiJFZERTQSIsImtpZCI', 'eyJqdGkiOiI']) {
      // The CVV's four digits are looked for standing alone: hashes and UUIDs hold them by chance.
      const whole = needle === CVV;
      expect(await cellsContaining(h.core.ledger, needle, { whole }), `ledger: ${needle}`).toEqual([]);
      expect(await sqliteFileCellsContaining(emulator, needle, { whole }), `${emulator}: ${needle}`).toEqual([]);
    }
    // ...and every byte of every file of the data directory (SQLite ledger, WAL, anything else) after closing.
    await h.core.close();
    expect(filesContaining(h.dataDir, [TEST_PAN, `"${CVV}"`, `cardCvv":"${CVV}`, 'eyJhbGciOiJFZERTQSIsImtpZCI', 'eyJqdGkiOiI'])).toEqual([]);
    await h.restart(); // afterAll closes it again
  });
});
