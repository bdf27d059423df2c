import { afterEach, describe, expect, it, vi } from 'vitest';
import { LosslessNumber } from '../../../src/shared/json';
import { AttemptStateError, IdempotencyConflictError, storedRequest } from '../../../src/main/ledger/repositories/attempts';
import { payinViews } from '../../../src/main/services/payments/views';
import { openReader, testLedger, type TestLedger } from '../../helpers/ledger';

let ledger: TestLedger | undefined;
afterEach(async () => {
  await ledger?.close();
  ledger = undefined;
});

const cardPayin = () => ({
  merchant_id: 'm-1',
  merchant_site_id: 's-1',
  payment_method: 'credit_card',
  amount: new LosslessNumber('10.10'),
  currency: 'EUR',
  email: 'ana@example.com',
  request_id: 'req-1',
  cardNum: '4111111111111111',
  cardHolder: 'Ana Diaz',
  cardExpireMonth: '12',
  cardExpireYear: '2030',
  cardCvv: '737',
});

describe('attempts (intent written before the request is sent)', () => {
  it('stores the prepared attempt durably before any send, readable by another connection', async () => {
    ledger = await testLedger();
    const attempt = await ledger.repos.attempts.prepare({ profileId: ledger.profile.id, kind: 'payin', idempotencyKey: 'key-1', reference: 'req-1', body: cardPayin() });
    expect(attempt).toMatchObject({ state: 'prepared', tryCount: 0, httpStatus: null });
    // Another process looking at the ledger (e.g. after a crash right now) sees the intent.
    const other = await openReader(ledger.address);
    try {
      expect(await other.all('SELECT state, idempotency_key FROM attempts')).toEqual([{ state: 'prepared', idempotency_key: 'key-1' }]);
    } finally {
      await other.close();
    }
  });

  it('keeps the exact amount and never the CVV or full card number', async () => {
    ledger = await testLedger();
    const attempt = await ledger.repos.attempts.prepare({ profileId: ledger.profile.id, kind: 'payin', idempotencyKey: 'key-1', reference: 'req-1', body: cardPayin() });
    expect(attempt.requestBody).not.toContain('4111111111111111');
    expect(attempt.requestBody).not.toContain('737');
    expect(JSON.parse(attempt.requestBody)).toMatchObject({ cardNum: '411111******1111', cardCvv: '[redacted]', cardHolder: 'Ana Diaz' });
    expect(attempt.requestBody).toContain('"amount":10.10');
  });

  it('returns the same attempt when the same key is prepared again with the same body (key order irrelevant)', async () => {
    ledger = await testLedger();
    const { attempts } = ledger.repos;
    const first = await attempts.prepare({ profileId: ledger.profile.id, kind: 'payin', idempotencyKey: 'key-1', reference: 'req-1', body: cardPayin() });
    const reordered = Object.fromEntries(Object.entries(cardPayin()).reverse());
    const again = await attempts.prepare({ profileId: ledger.profile.id, kind: 'payin', idempotencyKey: 'key-1', reference: 'req-1', body: reordered });
    expect(again.id).toBe(first.id);
    expect(await ledger.db.get('SELECT count(*) AS n FROM attempts')).toEqual({ n: 1 });
  });

  it('refuses the same key with another body', async () => {
    ledger = await testLedger();
    const { attempts } = ledger.repos;
    await attempts.prepare({ profileId: ledger.profile.id, kind: 'payin', idempotencyKey: 'key-1', reference: 'req-1', body: cardPayin() });
    const changed = { ...cardPayin(), amount: new LosslessNumber('10.11') };
    await expect(attempts.prepare({ profileId: ledger.profile.id, kind: 'payin', idempotencyKey: 'key-1', reference: 'req-1', body: changed })).rejects.toThrow(
      IdempotencyConflictError,
    );
    expect(storedRequest(changed).hash).not.toBe(storedRequest(cardPayin()).hash);
  });

  it('walks prepared → sending → unknown → sending (retry, same key) → succeeded and counts tries', async () => {
    ledger = await testLedger();
    const { attempts } = ledger.repos;
    await attempts.prepare({ profileId: ledger.profile.id, kind: 'payout', idempotencyKey: 'key-p', reference: 'po-1', body: { amount: 5 } });
    expect(await attempts.markSending('key-p')).toBe(true);
    expect(await attempts.markSending('key-p')).toBe(false); // already in flight: a second sender must back off
    ledger.clock.advance(5000);
    expect(await attempts.markUnknown('key-p', { error: 'timeout after 30 s' })).toMatchObject({ state: 'unknown', error: 'timeout after 30 s' });
    expect((await attempts.unresolved()).map((a) => a.idempotencyKey)).toEqual(['key-p']);
    expect(await attempts.markSending('key-p')).toBe(true);
    const done = await attempts.markSucceeded('key-p', { httpStatus: 200, responseBody: '{"status_code":"P100"}' });
    expect(done).toMatchObject({ state: 'succeeded', tryCount: 2, httpStatus: 200, responseSource: 'create', completedAt: '2026-03-01T10:00:05.000Z' });
    expect(await attempts.unresolved()).toEqual([]);
  });

  it('lets a status read settle an unknown attempt', async () => {
    ledger = await testLedger();
    const { attempts } = ledger.repos;
    await attempts.prepare({ profileId: ledger.profile.id, kind: 'payin', idempotencyKey: 'k', reference: 'r', body: {} });
    await attempts.markSending('k');
    await attempts.markUnknown('k', { error: 'connection reset' });
    expect(await attempts.markSucceeded('k', { httpStatus: 200, responseBody: '{"payin_id":"p"}', source: 'status_read' })).toMatchObject({
      state: 'succeeded',
      responseSource: 'status_read',
      error: null,
    });
  });

  it('refuses to send an attempt that already ended, and to finish one never sent', async () => {
    ledger = await testLedger();
    const { attempts } = ledger.repos;
    await attempts.prepare({ profileId: ledger.profile.id, kind: 'payin', idempotencyKey: 'k', reference: 'r', body: {} });
    await expect(attempts.markSucceeded('k', { httpStatus: 200, responseBody: '{}' })).rejects.toThrow(AttemptStateError);
    await expect(attempts.markUnknown('nope', { error: 'x' })).rejects.toThrow(/missing → unknown/);
    await attempts.markSending('k');
    await attempts.markRejected('k', { httpStatus: 400, responseBody: '{"reason_code":"MISSING_PARAMS"}' });
    expect(await attempts.markSending('k')).toBe(false);
    await expect(attempts.markUnknown('k', { error: 'x' })).rejects.toThrow(/rejected → unknown is not allowed/);
    expect(await attempts.byKey('k')).toMatchObject({ state: 'rejected', tryCount: 1 });
  });

  it('marks a body without card data replayable (stored verbatim) and a card body not', async () => {
    ledger = await testLedger();
    const { attempts } = ledger.repos;
    const plain = await attempts.prepare({ profileId: ledger.profile.id, kind: 'payin', idempotencyKey: 'a', reference: 'r1', body: { method: 'blik', amount: new LosslessNumber('5.00') } });
    const card = await attempts.prepare({ profileId: ledger.profile.id, kind: 'payin', idempotencyKey: 'b', reference: 'r2', body: cardPayin() });
    expect(plain).toMatchObject({ replayable: true, requestBody: '{"amount":5.00,"method":"blik"}' });
    expect(card.replayable).toBe(false);
  });

  it('enforces a unique idempotency key at the database level too', async () => {
    ledger = await testLedger();
    await ledger.repos.attempts.prepare({ profileId: ledger.profile.id, kind: 'payin', idempotencyKey: 'k', reference: 'r', body: {} });
    await expect(
      ledger.db.run("INSERT INTO attempts (profile_id, kind, idempotency_key, reference, request_hash, request_body, state, created_at, updated_at) VALUES (?, 'payin', 'k', 'r2', 'h', '{}', 'prepared', 'x', 'x')", [ledger.profile.id]),
    ).rejects.toThrow(/unique/i);
  });

  it('rolls back an attempt and its pay-in row together when the pair is written in one transaction', async () => {
    ledger = await testLedger();
    const { repos, profile } = ledger;
    const { attempts, payins } = repos;
    const write = repos.transaction(async () => {
      const attempt = await attempts.prepare({ profileId: profile.id, kind: 'payin', idempotencyKey: 'k', reference: 'req-9', body: {} });
      await payins.recordRequest({ profileId: profile.id, kind: 'payin', requestId: 'req-9', method: 'crypto', amount: '0.1234', currency: 'BTC', email: 'x@y.z', attemptId: attempt.id });
      throw new Error('crash before commit');
    });
    await expect(write).rejects.toThrow('crash before commit');
    expect(await attempts.byKey('k')).toBeUndefined();
    expect(await payins.byRequestId(ledger.profile.id, 'req-9')).toBeUndefined();
  });

  it('gives a page of pay-in views their attempts with one lookup, the same as row by row', async () => {
    ledger = await testLedger();
    const { repos, profile } = ledger;
    for (let i = 0; i < 6; i++) {
      const requestId = `req-${i}`;
      const attempt = await repos.attempts.prepare({ profileId: profile.id, kind: 'payin', idempotencyKey: `key-${i}`, reference: requestId, body: { ...cardPayin(), request_id: requestId } });
      if (i % 3 !== 0) await repos.attempts.markSending(attempt.idempotencyKey);
      if (i % 3 === 2) await repos.attempts.markUnknown(attempt.idempotencyKey, { error: 'timeout' });
      // One row without an attempt (recorded by another path): its view says so.
      const attemptId = i === 4 ? null : attempt.id;
      await repos.payins.recordRequest({ profileId: profile.id, kind: 'payin', requestId, method: 'open_banking', amount: '1.00', currency: 'EUR', email: 'ana@example.com', attemptId });
    }
    const page = (await repos.payins.page({}, { limit: 50 })).items;
    const lookup = { summaries: vi.fn((ids: readonly number[]) => repos.attempts.summaries(ids)) };
    const cards = { of: vi.fn((subject: 'payin' | 'payout', ids: readonly number[]) => repos.cards.of(subject, ids)) };
    const views = await payinViews(page, { attempts: lookup, cards });
    expect(lookup.summaries).toHaveBeenCalledTimes(1);
    expect(cards.of).toHaveBeenCalledTimes(1);
    const oneByOne = await Promise.all(page.map(async (r) => {
      const a = r.attemptId === null ? undefined : await repos.attempts.byId(r.attemptId);
      return a ? { idempotencyKey: a.idempotencyKey, state: a.state, settleNote: a.settleNote } : null;
    }));
    expect(views.map((v) => v.attempt)).toEqual(oneByOne);
    expect(new Set(oneByOne.map((a) => a?.state ?? null))).toEqual(new Set(['prepared', 'sending', 'unknown', null]));
  });
});
