// Migration 0011 as an upgrade from a version-10 ledger with data in
// it: the card of earlier card pay-ins and payouts is taken from their stored (masked) create
// requests, a tokenization's from its vaulted token, a token charge's stays unknown (nothing
// recorded which token it charged); a notification the applier had called older news becomes
// 'stale', every other keeps its outcome; and the card tables refuse more than first 6 / last 4.
// SQLite only: an upgrade of SQLite's schema (PostgreSQL ledgers start past it, docs/ledger.md).
import { afterEach, describe, expect, it } from 'vitest';
import { openLedger, schemaVersion } from '../../../src/main/ledger/connection';
import { migrations } from '../../../src/main/ledger/migrations/index';
import type { SqlValue } from '../../../src/main/ledger/engine/types';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { testEngine, testLedger, type TestLedger } from '../../helpers/ledger';

let ledger: TestLedger | undefined;
afterEach(async () => {
  await ledger?.close();
  ledger = undefined;
});

const AT = '2026-03-01T10:00:00.000Z';

describe.runIf(testEngine === 'sqlite')('migration 0011: cards on transactions, stale notifications', () => {
  it('upgrades a version-10 ledger, filling in what it already knew', async () => {
    ledger = await testLedger({ migrations: migrations.filter((m) => m.version <= 10) });
    if (!('file' in ledger.address)) throw new Error('a SQLite ledger was expected');
    const { file } = ledger.address;
    const { db, profile } = ledger;
    const inserted = async (sql: string, params: SqlValue[]) => {
      const row = await db.get<{ id: number }>(`${sql} RETURNING id`, params);
      if (!row) throw new Error('nothing inserted');
      return row.id;
    };
    const attempt = (key: string, kind: string, reference: string, body: object) =>
      inserted(
        `INSERT INTO attempts (profile_id, kind, idempotency_key, reference, request_hash, request_body, state, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'h', ?, 'succeeded', ?, ?)`,
        [profile.id, kind, key, reference, JSON.stringify(body), AT, AT],
      );
    const payin = (kind: string, requestId: string, method: string, attemptId: number | null) =>
      inserted(`INSERT INTO payins (profile_id, kind, request_id, method, amount, currency, email, attempt_id, created_at, updated_at) VALUES (?, ?, ?, ?, '10.00', 'EUR', 'a@b.c', ?, ?, ?)`, [
        profile.id, kind, requestId, method, attemptId, AT, AT,
      ]);
    const card = await payin('payin', 'r-card', 'credit_card', await attempt('k1', 'payin', 'r-card', { request_id: 'r-card', cardNum: '555555******4444', cardExpireMonth: '07', cardExpireYear: '2031', cardCvv: '[redacted]' }));
    const blik = await payin('payin', 'r-blik', 'blik', await attempt('k2', 'payin', 'r-blik', { request_id: 'r-blik', mobile: '+48123456789' }));
    const broken = await payin('payin', 'r-broken', 'credit_card', await attempt('k3', 'payin', 'r-broken', { request_id: 'r-broken', cardNum: '[redacted]' }));
    const tokenization = await payin('tokenization', 'r-tok', 'credit_card', await attempt('k4', 'tokenization', 'r-tok', { request_id: 'r-tok', merchant_jwt: '[redacted]' }));
    const charge = await payin('token_charge', 'r-charge', 'credit_card', await attempt('k5', 'token_charge', 'r-charge', { request_id: 'r-charge', merchant_jwt: '[redacted]', cardCvv: '[redacted]' }));
    await db.run(`INSERT INTO card_tokens (profile_id, token_ref, brand, bin, last4, exp_month, exp_year, request_id, created_at, updated_at) VALUES (?, 'tok_1', 'visa', '411111', '1111', '12', '2030', 'r-tok', ?, ?)`, [profile.id, AT, AT]);
    const payoutAttempt = await attempt('k6', 'payout', 'po-card', { merchantReference: 'po-card', paymentDetails: { method: 'credit_card', cardNum: '411111******1111', cardExpireMonth: '01', cardExpireYear: '2032' } });
    const payout = await inserted(`INSERT INTO payouts (profile_id, merchant_reference, method, amount, currency, email, attempt_id, created_at, updated_at) VALUES (?, 'po-card', 'credit_card', '5.00', 'EUR', 'a@b.c', ?, ?, ?)`, [
      profile.id, payoutAttempt, AT, AT,
    ]);
    const notify = (outcome: string, detail: string | null) =>
      inserted(
        `INSERT INTO notifications (profile_id, received_at, raw_headers, body, body_size, answer_status, event, status_code, dedupe_key, outcome, detail, payin_row_id)
         VALUES (?, ?, '[]', x'7b7d', 2, 200, 'v2_payin_notification', '101', ?, ?, ?, ?)`,
        [profile.id, AT, `k-${outcome}-${detail}`, outcome, detail, card],
      );
    const stale = await notify('applied', 'status 200 already holds; this older news changes nothing');
    const claimed = await notify('applied', 'claims status 200; a status read must confirm it');
    const duplicate = await notify('duplicate', 'duplicate of notification 1');
    await db.close();

    const upgraded = await openLedger({ file });
    try {
      expect(await schemaVersion(upgraded)).toBe(migrations.at(-1)?.version);
      const repos = createRepositories(upgraded);
      const payinCards = await repos.cards.of('payin', [card, tokenization, blik, broken, charge]);
      expect(payinCards.get(card)).toEqual({ brand: 'mastercard', bin: '555555', last4: '4444', expMonth: '07', expYear: '2031' });
      expect(payinCards.get(tokenization)).toEqual({ brand: 'visa', bin: '411111', last4: '1111', expMonth: '12', expYear: '2030' });
      expect([...payinCards.keys()].sort()).toEqual([card, tokenization].sort());
      expect((await repos.cards.of('payout', [payout])).get(payout)).toEqual({ brand: 'visa', bin: '411111', last4: '1111', expMonth: '01', expYear: '2032' });
      expect(await Promise.all([stale, claimed, duplicate].map(async (id) => (await repos.notifications.byId(id))?.outcome))).toEqual(['stale', 'applied', 'duplicate']);
      expect((await repos.notifications.summaryPage({ outcomes: ['stale'] }, { limit: 50 })).items.map((n) => n.id)).toEqual([stale]);
      expect((await repos.notifications.summaryPage({ outcomes: ['applied'] }, { limit: 50 })).items.map((n) => n.id)).toEqual([claimed]);
      await expect(upgraded.run('UPDATE payin_cards SET bin = ? WHERE payin_row_id = ?', ['4111111', card])).rejects.toThrow(/CHECK/);
      await expect(upgraded.run('UPDATE payout_cards SET last4 = ? WHERE payout_row_id = ?', ['11a1', payout])).rejects.toThrow(/CHECK/);
      await expect(upgraded.run('INSERT INTO payin_cards (payin_row_id, bin) VALUES (?, ?)', [9_999, '411111'])).rejects.toThrow(/FOREIGN KEY/);
    } finally {
      await upgraded.close();
    }
  });
});
