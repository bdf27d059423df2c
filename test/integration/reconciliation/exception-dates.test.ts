// The exception lists honour the date range shown above them (UTC days, both
// included), as the totals do: a transaction and an attempt by the day they were created, a
// notification by the day it arrived; their counts and CSV files alike. The services on a real
// ledger (SQLite, or PostgreSQL in its run), no gateway needed (test/helpers/service-harness.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExceptionKind } from '../../../src/shared/contract';
import { serviceHarness, type ServiceHarness } from '../../helpers/service-harness';
import { upsertFromCreate } from '../../../src/main/services/payments/apply';

let h: ServiceHarness;
let profileId: string;

/** Each list's rows, one created (or received) on each of these instants: the first and last of a day, and the next day's first. */
const DAYS = { '2025-02-01': '2025-02-01T00:00:00.000Z', '2025-02-02': '2025-02-02T23:59:59.999Z', '2025-02-03': '2025-02-03T00:00:00.000Z' } as const;
type Day = keyof typeof DAYS;
const KINDS: ExceptionKind[] = ['pending_too_long', 'payouts_stuck', 'orphans', 'unknown_attempts'];

beforeAll(async () => {
  h = await serviceHarness();
  profileId = h.profile.id;
  for (const [day, iso] of Object.entries(DAYS)) {
    const repos = h.reposAt(() => new Date(iso));
    // Still pending a year later: pending too long (the pay-in), stuck (the payout).
    await upsertFromCreate(repos.payins, { profileId, kind: 'payin', requestId: `in-${day}`, method: 'blik', amount: '10.00', currency: 'PLN', email: 'd@example.com' }, { gatewayId: `pid-${day}`, statusCode: 100 });
    await upsertFromCreate(repos.payouts, { profileId, merchantReference: `out-${day}`, method: 'fps', amount: '5.00', currency: 'GBP', email: 'd@example.com' }, { gatewayId: `po-${day}`, statusCode: 'P100' });
    const body = Buffer.from(JSON.stringify({ event: 'v2_payin_notification', status_code: 200, payin_id: `ghost-${day}`, request_id: `ghost-${day}` }));
    const [orphan] = await repos.notifications.insertMany([
      { profileId, receivedAt: iso, sourceAddress: null, rawHeaders: [], body, bodySize: body.length, bodyTruncated: false, answerStatus: 200, event: 'v2_payin_notification', transactionRef: `ghost-${day}`, requestRef: `ghost-${day}`, statusCode: '200', dedupeKey: `k-${day}`, outcome: 'pending', detail: null },
    ]);
    await repos.notifications.markOutcome(orphan as number, 'orphan');
    await repos.attempts.prepare({ profileId, kind: 'payin', idempotencyKey: `key-${day}`, reference: `lost-${day}`, body: { request_id: `lost-${day}` } });
    await repos.attempts.markSending(`key-${day}`);
    await repos.attempts.markUnknown(`key-${day}`, { error: 'timeout' });
  }
});
afterAll(async () => {
  await h?.close();
});

/** The day each listed row belongs to, read off its reference (or gateway id). */
const daysOf = (rows: { reference: string | null; gatewayId: string | null }[]) => rows.map((r) => /\d{4}-\d{2}-\d{2}$/.exec(r.reference ?? r.gatewayId ?? '')?.[0]).sort();

describe('exception lists within a date range', () => {
  const ranges: [{ from?: string; to?: string }, Day[]][] = [
    [{}, ['2025-02-01', '2025-02-02', '2025-02-03']],
    [{ from: '2025-02-01', to: '2025-02-02' }, ['2025-02-01', '2025-02-02']],
    [{ from: '2025-02-02' }, ['2025-02-02', '2025-02-03']],
    [{ to: '2025-02-01' }, ['2025-02-01']],
    [{ from: '2025-02-03', to: '2025-02-03' }, ['2025-02-03']],
    [{ from: '2025-03-01' }, []],
  ];

  it('lists, counts and pages only the rows of those days, in every list', async () => {
    for (const [range, days] of ranges) {
      const { counts } = await h.call('reconciliation:summary', { profileId, ...range });
      for (const kind of KINDS) {
        const label = `${kind} ${JSON.stringify(range)}`;
        // Pay-ins and payouts both sit in "pending too long": two rows a day.
        const expected = kind === 'pending_too_long' ? days.flatMap((d) => [d, d]) : days;
        const first = await h.call('reconciliation:exceptions', { kind, profileId, ...range, limit: 2 });
        const rest = first.nextCursor === null ? [] : (await h.call('reconciliation:exceptions', { kind, profileId, ...range, cursor: first.nextCursor, limit: 500 })).items;
        expect(daysOf([...first.items, ...rest]), label).toEqual(expected);
        expect(first.total, label).toBe(expected.length);
        expect(counts.find((c) => c.kind === kind)?.count, label).toBe(expected.length);
      }
    }
  });

  it('exports a list as CSV within the same range', async () => {
    const file = await h.call('reconciliation:export-csv', { what: 'exceptions', kind: 'orphans', profileId, from: '2025-02-02', to: '2025-02-03' });
    expect(file.rows).toBe(2);
    expect(file.csv).toContain('ghost-2025-02-02');
    expect(file.csv).toContain('ghost-2025-02-03');
    expect(file.csv).not.toContain('ghost-2025-02-01');
  });

  it('refuses a range that ends before it starts, or a day that is no date, naming the field', async () => {
    for (const channel of ['reconciliation:summary', 'reconciliation:exceptions'] as const) {
      const kind = channel === 'reconciliation:exceptions' ? { kind: 'orphans' } : {};
      expect(await h.failure(channel, { ...kind, from: '2025-02-03', to: '2025-02-01' })).toMatchObject({ code: 'invalid_input', fields: { to: expect.any(String) } });
      expect((await h.failure(channel, { ...kind, from: 'yesterday' })).fields).toHaveProperty('from');
    }
    expect((await h.failure('reconciliation:export-csv', { what: 'exceptions', kind: 'orphans', from: '2025-02-03', to: '2025-02-01' })).fields).toHaveProperty('to');
  });
});
