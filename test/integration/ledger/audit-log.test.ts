// The audit log, on either engine: append-only (the database refuses UPDATE, DELETE, TRUNCATE on
// PostgreSQL, and a row that does not extend the head) and hash-chained (verify() finds a row
// tampered with by someone who first removed the guards).
import { afterEach, describe, expect, it } from 'vitest';
import { openLedger, type Ledger } from '../../../src/main/ledger/connection';
import { AuditLog, auditHash } from '../../../src/main/ledger/repositories/audit-log';
import { testEngine, testLedger, type TestLedger } from '../../helpers/ledger';

const opened: TestLedger[] = [];
const reopened: Ledger[] = [];
afterEach(async () => {
  for (const db of reopened.splice(0)) await db.close();
  for (const ledger of opened.splice(0)) await ledger.close();
});

async function newLedger(): Promise<TestLedger> {
  const l = await testLedger();
  opened.push(l);
  return l;
}

/** Opens the ledger again through the real connection code, as the app would, and returns its audit log. */
async function reopenAudit(l: TestLedger): Promise<AuditLog> {
  const db = await openLedger(l.address);
  reopened.push(db);
  return new AuditLog(db);
}

/** Three entries, oldest first, as appended. */
async function appendThree(l: TestLedger) {
  const { audit } = l.repos;
  await audit.append({ actor: 'finance@merchant', action: 'payout.submit', profileId: l.profile.id, subject: 'po-1', details: { amount: '10.00' } });
  l.clock.advance(1000);
  await audit.append({ actor: 'admin', action: 'settings.update', details: { theme: 'dark' } });
  l.clock.advance(1000);
  await audit.append({ actor: 'admin', action: 'keys.generate', profileId: l.profile.id, details: { kid: 'k-2' } });
  return (await audit.list()).reverse();
}

const GUARDS = ['audit_log_no_update', 'audit_log_no_delete', 'audit_log_extends_head'];

/** Tampering "from outside": someone with the database's own rights drops the guard triggers first. */
async function withoutTriggers(l: TestLedger, run: (raw: Ledger) => Promise<unknown>): Promise<void> {
  for (const trigger of GUARDS) await l.db.run(testEngine === 'sqlite' ? `DROP TRIGGER ${trigger}` : `DROP TRIGGER ${trigger} ON audit_log`);
  await run(l.db);
}

type RawAuditRow = Parameters<typeof auditHash>[1] & { prev_hash: string };

/** Rewrites a row's details and gives it the hash its new content deserves (a forger who knows the scheme). */
async function rehash(raw: Ledger, seq: number, details: string): Promise<void> {
  await raw.run('UPDATE audit_log SET details = ? WHERE seq = ?', [details, seq]);
  const row = await raw.get<RawAuditRow>('SELECT * FROM audit_log WHERE seq = ?', [seq]);
  if (!row) throw new Error(`no audit row ${seq}`);
  await raw.run('UPDATE audit_log SET hash = ? WHERE seq = ?', [auditHash(row.prev_hash, row), seq]);
}

describe('audit log (append-only, hash-chained)', () => {
  it('chains each row to the previous one and verifies a clean chain', async () => {
    const ledger = await newLedger();
    const [a, b, c] = await appendThree(ledger);
    expect(a?.prevHash).toBe('0'.repeat(64));
    expect(b?.prevHash).toBe(a?.hash);
    expect(c?.prevHash).toBe(b?.hash);
    expect(new Set([a?.hash, b?.hash, c?.hash]).size).toBe(3);
    expect(await ledger.repos.audit.verify()).toEqual({ ok: true, count: 3, head: { seq: 3, hash: c?.hash } });
  });

  it('keeps one chain when many transactions append at once (each reads the head once it holds the audit lock)', async () => {
    const ledger = await newLedger();
    const { repos } = ledger;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        repos.transaction(async () => {
          await repos.limits.upsert({ environment: 'live', currency: `C${String(i).padStart(2, '0')}`, perPayoutMax: '1', dailyMax: null });
          await repos.audit.append({ actor: 'admin', action: 'limits.set', subject: `C${i}` });
        }),
      ),
    );
    expect(await repos.audit.verify()).toMatchObject({ ok: true, count: 20 });
  });

  it('refuses UPDATE and DELETE through SQL', async () => {
    const ledger = await newLedger();
    await appendThree(ledger);
    await expect(ledger.db.run("UPDATE audit_log SET actor = 'mallory' WHERE seq = 1")).rejects.toThrow(/append-only: UPDATE refused/);
    await expect(ledger.db.run('DELETE FROM audit_log WHERE seq = 3')).rejects.toThrow(/append-only: DELETE refused/);
    expect((await ledger.repos.audit.list()).map((e) => e.actor)).toEqual(['admin', 'admin', 'finance@merchant']);
  });

  // SQLite has no TRUNCATE (its DELETE without WHERE meets the DELETE trigger, above).
  it.runIf(testEngine === 'postgres')('refuses TRUNCATE (PostgreSQL)', async () => {
    const ledger = await newLedger();
    await appendThree(ledger);
    await expect(ledger.db.run('TRUNCATE audit_log')).rejects.toThrow(/append-only: TRUNCATE refused/);
    expect(await ledger.repos.audit.verify()).toMatchObject({ ok: true, count: 3 });
  });

  it('refuses an INSERT that does not extend the current head (no fork, no gap)', async () => {
    const ledger = await newLedger();
    const [a] = await appendThree(ledger);
    const insert = (seq: number, prevHash: string | undefined) =>
      ledger.db.run("INSERT INTO audit_log (seq, at, actor, action, details, prev_hash, hash) VALUES (?, 'x', 'm', 'a', '{}', ?, ?)", [seq, prevHash ?? null, 'f'.repeat(64)]);
    await expect(insert(4, a?.hash)).rejects.toThrow(/extend the current head/);
    await expect(insert(9, (await ledger.repos.audit.head())?.hash)).rejects.toThrow(/extend the current head/);
    expect(await ledger.repos.audit.verify()).toMatchObject({ ok: true, count: 3 });
  });

  it('detects a row edited after the triggers were dropped, and names that row', async () => {
    const ledger = await newLedger();
    await appendThree(ledger);
    await withoutTriggers(ledger, (raw) => raw.run(`UPDATE audit_log SET details = '{"amount":"1000.00"}' WHERE seq = 1`));
    expect(await (await reopenAudit(ledger)).verify()).toMatchObject({ ok: false, brokenAt: 1, reason: 'content does not match its hash' });
  });

  it('detects a row whose stored hash alone was altered, and names that row', async () => {
    const ledger = await newLedger();
    const [, b] = await appendThree(ledger);
    // Always a different first character (a fixed one would equal the original 1 time in 16).
    await withoutTriggers(ledger, (raw) => raw.run("UPDATE audit_log SET hash = (CASE substr(hash, 1, 1) WHEN 'e' THEN 'f' ELSE 'e' END) || substr(hash, 2) WHERE seq = 2"));
    const audit = await reopenAudit(ledger);
    expect((await audit.list()).find((e) => e.seq === 2)?.hash).not.toBe(b?.hash);
    expect(await audit.verify()).toMatchObject({ ok: false, brokenAt: 2, reason: 'content does not match its hash' });
  });

  it('detects a row edited together with its own hash (the next row no longer links)', async () => {
    const ledger = await newLedger();
    const [, b] = await appendThree(ledger);
    // The forger rewrites row 2 and gives it the hash its new content deserves: row 2 alone verifies…
    await withoutTriggers(ledger, (raw) => rehash(raw, 2, '{"theme":"light"}'));
    const audit = await reopenAudit(ledger);
    const edited = (await audit.list()).find((e) => e.seq === 2);
    expect(edited?.details).toBe('{"theme":"light"}');
    expect(edited?.hash).not.toBe(b?.hash);
    // …but row 3 still names the old hash, so the chain breaks there.
    expect(await audit.verify()).toMatchObject({ ok: false, brokenAt: 3, reason: 'prev_hash does not match the previous row' });
  });

  it('detects a deleted middle row, and a truncated tail against a recorded head', async () => {
    const ledger = await newLedger();
    await appendThree(ledger);
    await withoutTriggers(ledger, (raw) => raw.run('DELETE FROM audit_log WHERE seq = 2'));
    expect(await (await reopenAudit(ledger)).verify()).toMatchObject({ ok: false, brokenAt: 3, reason: 'row 2 is missing' });

    const second = await newLedger();
    await appendThree(second);
    const secondHead = await second.repos.audit.head();
    await withoutTriggers(second, (raw) => raw.run('DELETE FROM audit_log WHERE seq = 3'));
    const truncated = await reopenAudit(second);
    expect((await truncated.verify()).ok).toBe(true); // the chain alone cannot see a cut tail…
    expect(await truncated.verify(secondHead ?? undefined)).toMatchObject({ ok: false, brokenAt: 3 }); // …a recorded head can
  });

  it('catches a chain rewritten with recomputed hashes, given a head recorded before', async () => {
    const ledger = await newLedger();
    await appendThree(ledger);
    const recorded = (await ledger.repos.audit.head()) ?? undefined;
    await withoutTriggers(ledger, (raw) => rehash(raw, 3, '{"kid":"k-evil"}'));
    const audit = await reopenAudit(ledger);
    expect((await audit.verify()).ok).toBe(true);
    expect(await audit.verify(recorded)).toMatchObject({ ok: false, brokenAt: 3, reason: 'row does not match the recorded head' });
  });

  it('never stores a card number, CVV or credential in details', async () => {
    const ledger = await newLedger();
    await ledger.repos.audit.append({
      actor: 'finance',
      action: 'payout.submit',
      details: { paymentDetails: { method: 'credit_card', cardNum: '4111111111111111' }, cardCvv: '123', note: '5500005555555559', merchant_token: 'secret-token' },
    });
    const [entry] = await ledger.repos.audit.list();
    expect(entry?.details).not.toMatch(/4111111111111111|5500005555555559|secret-token|"123"/);
    expect(JSON.parse(entry?.details ?? '{}')).toMatchObject({ paymentDetails: { cardNum: '411111******1111' }, cardCvv: '[redacted]', merchant_token: '[redacted]' });
  });
});
