import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openLedger } from '../../../src/main/ledger/connection';
import { AuditLog, auditHash } from '../../../src/main/ledger/repositories/audit-log';
import { testLedger, type TestLedger } from '../../helpers/ledger';

const opened: TestLedger[] = [];
const reopened: Database.Database[] = [];
afterEach(() => {
  reopened.splice(0).forEach((db) => db.open && db.close());
  opened.splice(0).forEach((l) => l.close());
});

function newLedger(): TestLedger {
  const l = testLedger();
  opened.push(l);
  return l;
}

/** Reopens the file through the real connection code, as the app would, and returns its audit log. */
function reopenAudit(l: TestLedger): AuditLog {
  const db = openLedger({ file: l.file });
  reopened.push(db);
  return new AuditLog(db);
}

function appendThree(l: TestLedger) {
  const { audit } = l.repos;
  const a = audit.append({ actor: 'finance@merchant', action: 'payout.submit', profileId: l.profile.id, subject: 'po-1', details: { amount: '10.00' } });
  l.clock.advance(1000);
  const b = audit.append({ actor: 'admin', action: 'settings.update', details: { theme: 'dark' } });
  l.clock.advance(1000);
  const c = audit.append({ actor: 'admin', action: 'keys.generate', profileId: l.profile.id, details: { kid: 'k-2' } });
  return [a, b, c];
}

/** Tampering "from outside": a raw connection that drops the guard triggers first. */
function withoutTriggers(file: string, run: (raw: Database.Database) => void): void {
  const raw = new Database(file);
  raw.exec('DROP TRIGGER audit_log_no_update; DROP TRIGGER audit_log_no_delete; DROP TRIGGER audit_log_extends_head;');
  run(raw);
  raw.close();
}

describe('audit log (append-only, hash-chained)', () => {
  it('chains each row to the previous one and verifies a clean chain', () => {
    const ledger = newLedger();
    const [a, b, c] = appendThree(ledger);
    expect(a?.prevHash).toBe('0'.repeat(64));
    expect(b?.prevHash).toBe(a?.hash);
    expect(c?.prevHash).toBe(b?.hash);
    expect(new Set([a?.hash, b?.hash, c?.hash]).size).toBe(3);
    expect(ledger.repos.audit.verify()).toEqual({ ok: true, count: 3, head: { seq: 3, hash: c?.hash } });
  });

  it('refuses UPDATE and DELETE through SQL', () => {
    const ledger = newLedger();
    appendThree(ledger);
    expect(() => ledger.db.prepare("UPDATE audit_log SET actor = 'mallory' WHERE seq = 1").run()).toThrow(/append-only: UPDATE refused/);
    expect(() => ledger.db.prepare('DELETE FROM audit_log WHERE seq = 3').run()).toThrow(/append-only: DELETE refused/);
    expect(ledger.repos.audit.list().map((e) => e.actor)).toEqual(['admin', 'admin', 'finance@merchant']);
  });

  it('refuses an INSERT that does not extend the current head (no fork, no gap)', () => {
    const ledger = newLedger();
    const [a] = appendThree(ledger);
    const insert = ledger.db.prepare(
      "INSERT INTO audit_log (seq, at, actor, action, details, prev_hash, hash) VALUES (?, 'x', 'm', 'a', '{}', ?, ?)",
    );
    expect(() => insert.run(4, a?.hash, 'f'.repeat(64))).toThrow(/extend the current head/);
    expect(() => insert.run(9, ledger.repos.audit.head()?.hash, 'f'.repeat(64))).toThrow(/extend the current head/);
  });

  it('detects a row edited after the triggers were dropped, and names that row', () => {
    const ledger = newLedger();
    appendThree(ledger);
    ledger.db.close();
    withoutTriggers(ledger.file, (raw) => raw.prepare(`UPDATE audit_log SET details = '{"amount":"1000.00"}' WHERE seq = 1`).run());
    expect(reopenAudit(ledger).verify()).toMatchObject({ ok: false, brokenAt: 1, reason: 'content does not match its hash' });
  });

  it('detects a row whose stored hash alone was altered, and names that row', () => {
    const ledger = newLedger();
    const [, b] = appendThree(ledger);
    ledger.db.close();
    // Always a different first character (a fixed one would equal the original 1 time in 16).
    withoutTriggers(ledger.file, (raw) => raw.prepare("UPDATE audit_log SET hash = (CASE substr(hash, 1, 1) WHEN 'e' THEN 'f' ELSE 'e' END) || substr(hash, 2) WHERE seq = 2").run());
    const audit = reopenAudit(ledger);
    expect(audit.list().find((e) => e.seq === 2)?.hash).not.toBe(b?.hash);
    expect(audit.verify()).toMatchObject({ ok: false, brokenAt: 2, reason: 'content does not match its hash' });
  });

  it('detects a row edited together with its own hash (the next row no longer links)', () => {
    const ledger = newLedger();
    const [, b] = appendThree(ledger);
    ledger.db.close();
    // The forger rewrites row 2 and gives it the hash its new content deserves: row 2 alone verifies…
    withoutTriggers(ledger.file, (raw) => {
      raw.prepare(`UPDATE audit_log SET details = '{"theme":"light"}' WHERE seq = 2`).run();
      const row = raw.prepare('SELECT * FROM audit_log WHERE seq = 2').get() as Parameters<typeof auditHash>[1] & { prev_hash: string };
      raw.prepare('UPDATE audit_log SET hash = ? WHERE seq = 2').run(auditHash(row.prev_hash, row));
    });
    const audit = reopenAudit(ledger);
    const edited = audit.list().find((e) => e.seq === 2);
    expect(edited?.details).toBe('{"theme":"light"}');
    expect(edited?.hash).not.toBe(b?.hash);
    // …but row 3 still names the old hash, so the chain breaks there.
    expect(audit.verify()).toMatchObject({ ok: false, brokenAt: 3, reason: 'prev_hash does not match the previous row' });
  });

  it('detects a deleted middle row, and a truncated tail against a recorded head', () => {
    const ledger = newLedger();
    appendThree(ledger);
    ledger.db.close();
    withoutTriggers(ledger.file, (raw) => raw.prepare('DELETE FROM audit_log WHERE seq = 2').run());
    expect(reopenAudit(ledger).verify()).toMatchObject({ ok: false, brokenAt: 3, reason: 'row 2 is missing' });

    const second = newLedger();
    appendThree(second);
    const secondHead = second.repos.audit.head();
    second.db.close();
    withoutTriggers(second.file, (raw) => raw.prepare('DELETE FROM audit_log WHERE seq = 3').run());
    const truncated = reopenAudit(second);
    expect(truncated.verify().ok).toBe(true); // the chain alone cannot see a cut tail…
    expect(truncated.verify(secondHead ?? undefined)).toMatchObject({ ok: false, brokenAt: 3 }); // …a recorded head can
  });

  it('catches a chain rewritten with recomputed hashes, given a head recorded before', () => {
    const ledger = newLedger();
    appendThree(ledger);
    const recorded = ledger.repos.audit.head() ?? undefined;
    ledger.db.close();
    withoutTriggers(ledger.file, (raw) => {
      raw.prepare(`UPDATE audit_log SET details = '{"kid":"k-evil"}' WHERE seq = 3`).run();
      const row = raw.prepare('SELECT * FROM audit_log WHERE seq = 3').get() as Parameters<typeof auditHash>[1] & { prev_hash: string };
      raw.prepare('UPDATE audit_log SET hash = ? WHERE seq = 3').run(auditHash(row.prev_hash, row));
    });
    const audit = reopenAudit(ledger);
    expect(audit.verify().ok).toBe(true);
    expect(audit.verify(recorded)).toMatchObject({ ok: false, brokenAt: 3, reason: 'row does not match the recorded head' });
  });

  it('never stores a card number, CVV or credential in details', () => {
    const ledger = newLedger();
    const entry = ledger.repos.audit.append({
      actor: 'finance',
      action: 'payout.submit',
      details: { paymentDetails: { method: 'credit_card', cardNum: '4111111111111111' }, cardCvv: '123', note: '5500005555555559', merchant_token: 'secret-token' },
    });
    expect(entry.details).not.toMatch(/4111111111111111|5500005555555559|secret-token|"123"/);
    expect(JSON.parse(entry.details)).toMatchObject({ paymentDetails: { cardNum: '411111******1111' }, cardCvv: '[redacted]', merchant_token: '[redacted]' });
  });
});
