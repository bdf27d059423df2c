// Who each payout paid, as an upgrade from the version before, on each engine: SQLite's migration
// 0019 from a version-18 ledger, PostgreSQL's 0006 from a version-5 database. Payouts recorded
// before it get their beneficiary key from the request the ledger kept (a card's from its card
// facts), the very text beneficiaryKey gives a new payout, so an earlier payout is found as a
// possible duplicate whichever version recorded it; a stored request that is not JSON gives no
// key and no failed upgrade. Every row is kept; batches leave out no row until told.
import { describe, expect, it } from 'vitest';
import { schemaVersion } from '../../../src/main/ledger/connection';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { beneficiaryKey } from '../../../src/shared/payout-destination';
import { ledgerAtVersion, ledgerRows, ManualClock, testEngine, upgradedLedger } from '../../helpers/ledger';
import { cleanupsAfterEach } from '../../helpers/cleanups';

const clock = new ManualClock();
const cleanups = cleanupsAfterEach();

const VERSIONS = testEngine === 'sqlite' ? { before: 18, added: 19 } : { before: 5, added: 6 };

/** Payouts as people typed them: spaces and small letters in an IBAN, a network in capitals. */
const STORED: { reference: string; method: string; details: Record<string, string>; card?: { bin: string; last4: string } }[] = [
  { reference: 'ob-spaced', method: 'open_banking', details: { iban: 'de89 3704 0044 0532 0130 00', bic: 'COBADEFFXXX', accountHolder: 'José Müller' } },
  { reference: 'crypto', method: 'crypto', details: { walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7', network: 'Ethereum' } },
  { reference: 'fps', method: 'fps', details: { sortCode: '40 12 76', accountNumber: '12345678', accountHolder: 'Bob Stone' } },
  { reference: 'card', method: 'credit_card', details: { cardNum: '411111******1111', cardHolder: 'Ann Lee' }, card: { bin: '411111', last4: '1111' } },
];

describe(`who a payout paid, as an upgrade from version ${VERSIONS.before} (${testEngine})`, () => {
  it('keys every earlier payout as a new one is keyed, keeps every row, and finds them through the index', async () => {
    const old = await ledgerAtVersion(VERSIONS.before, clock.now, cleanups);
    expect(await schemaVersion(old.db)).toBe(VERSIONS.before);
    const repos = createRepositories(old.db, clock.now);
    const profile = await repos.profiles.create({ name: 'Local emulator', environment: 'local', baseUrl: 'http://127.0.0.1:9/api/v2', merchantId: 'm-1', merchantSiteId: 's-1' });
    const at = clock.now().toISOString();
    // Written as the version before wrote them: the attempt's request body, the payout row, a card's facts.
    const write = async (reference: string, method: string, body: string) => {
      const attempt = (await old.db.get<{ id: number }>(
        `INSERT INTO attempts (profile_id, kind, idempotency_key, reference, request_hash, request_body, replayable, state, try_count, created_at, updated_at)
         VALUES (?, 'payout', ?, ?, 'h', ?, 1, 'succeeded', 1, ?, ?) RETURNING id`,
        [profile.id, `key-${reference}`, reference, body, at, at],
      ))!;
      return (await old.db.get<{ id: number }>(
        `INSERT INTO payouts (profile_id, merchant_reference, method, amount, currency, email, status_code, final, attempt_id, created_at, updated_at)
         VALUES (?, ?, ?, '25.00', 'EUR', 'a@example.com', 'P200', 1, ?, ?, ?) RETURNING id`,
        [profile.id, reference, method, attempt.id, at, at],
      ))!.id;
    };
    for (const payout of STORED) {
      const id = await write(payout.reference, payout.method, JSON.stringify({ merchantReference: payout.reference, method: payout.method, amount: 25, paymentDetails: { ...payout.details, method: payout.method } }));
      if (payout.card) await old.db.run("INSERT INTO payout_cards (payout_row_id, brand, bin, last4, exp_month, exp_year) VALUES (?, 'visa', ?, ?, '12', '2030')", [id, payout.card.bin, payout.card.last4]);
    }
    await write('not-json', 'open_banking', 'not json {');
    const batch = (await old.db.get<{ id: number }>("INSERT INTO batches (profile_id, environment, file_name, state, declared_rows, created_at, updated_at) VALUES (?, 'local', 'old.csv', 'done', 1, ?, ?) RETURNING id", [profile.id, at, at]))!;
    const before = await ledgerRows(old.db);
    await old.db.close();

    const db = await upgradedLedger(old.address, clock.now, cleanups);
    expect(await schemaVersion(db)).toBeGreaterThanOrEqual(VERSIONS.added);
    const keys = new Map((await db.all<{ merchant_reference: string; beneficiary_key: string | null }>('SELECT merchant_reference, beneficiary_key FROM payouts')).map((r) => [r.merchant_reference, r.beneficiary_key]));
    // The same text a new payout gets (its card compared on its first 6 / last 4 only).
    for (const payout of STORED) expect(keys.get(payout.reference), payout.reference).toBe(beneficiaryKey(payout.method, payout.details, payout.card));
    expect(Object.fromEntries(keys)).toEqual({
      'ob-spaced': 'iban:DE89370400440532013000',
      crypto: 'wallet:ethereum:0x52908400098527886e0f7030069857d2e4169ee7',
      fps: 'account:401276:12345678',
      card: 'card:411111…1111',
      'not-json': null,
    });
    const added: Record<string, Record<string, unknown>> = { batches: { left_out_rows: 0 } };
    const after = await ledgerRows(db);
    expect(after.payouts?.map((row) => ({ ...(row as object), beneficiary_key: undefined }))).toEqual(before.payouts?.map((row) => ({ ...(row as object), beneficiary_key: undefined })));
    expect(after.batches).toEqual(before.batches?.map((row) => ({ ...(row as object), ...added.batches })));
    expect(await db.all('SELECT * FROM batch_left_out_rows')).toEqual([]);
    expect((await createRepositories(db, clock.now).batches.batch(batch.id))?.leftOutRows).toBe(0);

    // A new payout to "DE89 3704…" finds the one from before the upgrade.
    const upgraded = createRepositories(db, clock.now);
    const found = await upgraded.payouts.toBeneficiaries(profile.id, [beneficiaryKey('open_banking', { iban: 'DE89370400440532013000' })!], '2000-01-01T00:00:00.000Z');
    expect(found.map((p) => p.merchantReference)).toEqual(['ob-spaced']);
    if (testEngine === 'sqlite') {
      const plan = await db.all<{ detail: string }>(
        "EXPLAIN QUERY PLAN SELECT id FROM payouts WHERE profile_id = ? AND beneficiary_key IN (?, ?) AND created_at >= ? AND NOT (final = 1 AND status_code <> 'P200')",
        [profile.id, 'a', 'b', at],
      );
      expect(plan.map((r) => r.detail).join('\n')).toMatch(/SEARCH payouts USING INDEX payouts_beneficiary \(profile_id=\? AND beneficiary_key=\? AND created_at>\?\)/);
    }
  });
});
