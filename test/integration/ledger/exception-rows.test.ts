// A reconciliation list read whole for its export (ExceptionsRepository.rows) holds the rows of
// its pages, in their order, however its chunks fall: pay-ins and payouts merged newest first, a
// tie on created_at broken by table then id, each row once. On this run's engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExceptionListQuery, ExceptionRecord } from '../../../src/main/ledger/repositories/exceptions';
import { testLedger, type TestLedger } from '../../helpers/ledger';
import { upsertFromCreate } from '../../../src/main/services/payments/apply';

let ledger: TestLedger;
beforeAll(async () => {
  ledger = await testLedger();
  const { repos, clock, profile } = ledger;
  // 26 pay-ins and 14 payouts, many created at the same instant, within and across the tables.
  for (let i = 0; i < 40; i++) {
    if (i > 0 && i % 3 === 0) clock.advance(1000);
    if (i % 7 < 4 || i >= 34) await upsertFromCreate(repos.payins, { profileId: profile.id, kind: 'payin', requestId: `in-${i}`, method: 'blik', amount: '1.00', currency: 'PLN', email: 'r@example.com' }, { gatewayId: `pid-${i}`, statusCode: 100 });
    else await upsertFromCreate(repos.payouts, { profileId: profile.id, merchantReference: `out-${i}`, method: 'fps', amount: '1.00', currency: 'GBP', email: 'r@example.com' }, { gatewayId: `po-${i}`, statusCode: 'P100' });
  }
});
afterAll(async () => {
  await ledger?.close();
});

const query = (kind: ExceptionListQuery['kind']): ExceptionListQuery => ({ kind, pendingBefore: '2027-01-01T00:00:00.000Z', interruptedBefore: '2027-01-01T00:00:00.000Z' });
const key = (r: ExceptionRecord) => `${r.source === 'transaction' ? r.subject : r.source}:${r.id}`;

async function paged(q: ExceptionListQuery, limit: number): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<TestLedger['repos']['exceptions']['page']>> = await ledger.repos.exceptions.page(q, { cursor, limit });
    keys.push(...page.items.map(key));
    cursor = page.nextCursor;
  } while (cursor !== null);
  return keys;
}

async function streamed(q: ExceptionListQuery, chunk: number): Promise<string[]> {
  const keys: string[] = [];
  for await (const record of ledger.repos.exceptions.rows(q, chunk)) keys.push(key(record));
  return keys;
}

describe('a list read whole for its export', () => {
  it('holds the rows of its pages in their order, whatever the chunk: both tables merged, each row once', async () => {
    const pending = await paged(query('pending_too_long'), 2);
    expect(pending).toHaveLength(40);
    expect(new Set(pending).size).toBe(40);
    expect(pending.filter((k) => k.startsWith('payin:'))).toHaveLength(26);
    expect(await paged(query('pending_too_long'), 500)).toEqual(pending);
    for (const chunk of [1, 2, 3, 5, 26, 1000]) expect(await streamed(query('pending_too_long'), chunk), `chunk ${chunk}`).toEqual(pending);
    // One table only: the payouts still in P100.
    const stuck = await paged(query('payouts_stuck'), 3);
    expect(stuck).toHaveLength(14);
    expect(await streamed(query('payouts_stuck'), 4)).toEqual(stuck);
  });

  it('stops reading when the reader stops', async () => {
    const taken: string[] = [];
    for await (const record of ledger.repos.exceptions.rows(query('pending_too_long'), 4)) {
      taken.push(key(record));
      if (taken.length === 6) break;
    }
    expect(taken).toEqual((await paged(query('pending_too_long'), 500)).slice(0, 6));
  });
});
