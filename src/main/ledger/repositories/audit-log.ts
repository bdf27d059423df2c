// The append-only audit log of user actions (payouts, settings, key changes). Each row's hash is
// SHA-256(previous hash + canonical content), so editing, removing or reordering any row (even
// with the triggers dropped) breaks the chain at that row. Truncating the newest rows is only
// detectable against a head recorded elsewhere: pass it to verify() as `expectedHead`.
import { GENESIS_HASH } from '../migrations/0005_audit_log';
import type { Sql } from '../engine/types';
import { redactForStorage } from '../../../shared/redact';
import { canonicalJson, isoTime, sha256Hex, systemClock, type Clock } from '../support';
import { placeholders } from './page';

export interface AuditEntry {
  seq: number;
  at: string;
  actor: string;
  action: string;
  profileId: string | null;
  subject: string | null;
  /** Canonical JSON, redacted (no card number, CVV or credential ever reaches this table). */
  details: string;
  prevHash: string;
  hash: string;
}

export interface NewAuditEntry {
  actor: string;
  action: string;
  profileId?: string | null;
  subject?: string | null;
  details?: unknown;
}

export type ChainVerdict =
  | { ok: true; count: number; head: { seq: number; hash: string } | null }
  | { ok: false; brokenAt: number; reason: string };

interface AuditRow {
  seq: number;
  at: string;
  actor: string;
  action: string;
  profile_id: string | null;
  subject: string | null;
  details: string;
  prev_hash: string;
  hash: string;
}

const toEntry = (r: AuditRow): AuditEntry => ({
  seq: r.seq,
  at: r.at,
  actor: r.actor,
  action: r.action,
  profileId: r.profile_id,
  subject: r.subject,
  details: r.details,
  prevHash: r.prev_hash,
  hash: r.hash,
});

/** The newest entry's place in the chain. */
const HEAD = 'SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1';

/** The content a row's hash covers; seq is included so moving a row breaks the chain too. */
export function auditHash(prevHash: string, r: Omit<AuditRow, 'prev_hash' | 'hash'>): string {
  return sha256Hex(prevHash + canonicalJson([r.seq, r.at, r.actor, r.action, r.profile_id, r.subject, r.details]));
}

export class AuditLog {
  constructor(
    private readonly db: Sql,
    private readonly now: Clock = systemClock,
    /** On a team server, the person whose request is served: an action of 'user' is recorded as theirs (their username). */
    private readonly person: () => string | undefined = () => undefined,
  ) {}

  /**
   * Appends an entry: inside a transaction, when it commits (the last of its writes, after the
   * entries appended before it), else now. The chain's head is read and extended under the audit
   * lock, which two processes on one PostgreSQL ledger take one at a time (SQLite's write lock does
   * it there) and which is held until the commit: appended last, it is held for the append and
   * the commit only, not for the rest of the transaction.
   */
  async append(entry: NewAuditEntry): Promise<void> {
    const content = {
      actor: entry.actor === 'user' ? (this.person() ?? 'user') : entry.actor,
      action: entry.action,
      profile_id: entry.profileId ?? null,
      subject: entry.subject ?? null,
      details: canonicalJson(redactForStorage(entry.details ?? {})),
    };
    await this.db.atCommit(async () => {
      const [head] = await this.db.lockAndRead<{ seq: number; hash: string }>('audit', HEAD);
      const row = { seq: (head?.seq ?? 0) + 1, at: isoTime(this.now()), ...content };
      const prevHash = head?.hash ?? GENESIS_HASH;
      await this.db.run('INSERT INTO audit_log (seq, at, actor, action, profile_id, subject, details, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', [row.seq, row.at, row.actor, row.action, row.profile_id, row.subject, row.details, prevHash, auditHash(prevHash, row)]);
    });
  }

  async head(): Promise<{ seq: number; hash: string } | null> {
    return (await this.db.get<{ seq: number; hash: string }>(HEAD)) ?? null;
  }

  /** Newest first. */
  async list(options: { beforeSeq?: number; limit?: number } = {}): Promise<AuditEntry[]> {
    const rows = (await this.db.all('SELECT * FROM audit_log WHERE seq < ? ORDER BY seq DESC LIMIT ?', [options.beforeSeq ?? Number.MAX_SAFE_INTEGER, Math.min(options.limit ?? 100, 1000)])) as AuditRow[];
    return rows.map(toEntry);
  }

  /** Entries about any of these subjects in this profile (or in none), oldest first, without their chain hashes. */
  async forSubjects(profileId: string, subjects: readonly string[]): Promise<Omit<AuditEntry, 'prevHash' | 'hash'>[]> {
    if (subjects.length === 0) return [];
    const rows = (await this.db.all(`SELECT * FROM audit_log WHERE subject IN (${placeholders(subjects)}) AND (profile_id = ? OR profile_id IS NULL) ORDER BY seq`, [...subjects, profileId])) as AuditRow[];
    return rows.map(toEntry).map(({ prevHash: _prevHash, hash: _hash, ...entry }) => entry);
  }

  /** Walks the whole chain in order and reports the first row that does not hold. */
  async verify(expectedHead?: { seq: number; hash: string }): Promise<ChainVerdict> {
    let prevHash = GENESIS_HASH;
    let expectedSeq = 1;
    let count = 0;
    // In pages, so a long log is never held in memory at once.
    for (let rows = await this.chainPage(0); rows.length > 0; rows = await this.chainPage(rows.at(-1)!.seq)) {
      for (const row of rows) {
        if (row.seq !== expectedSeq) return { ok: false, brokenAt: row.seq, reason: `row ${expectedSeq} is missing` };
        if (row.prev_hash !== prevHash) return { ok: false, brokenAt: row.seq, reason: 'prev_hash does not match the previous row' };
        if (auditHash(prevHash, row) !== row.hash) return { ok: false, brokenAt: row.seq, reason: 'content does not match its hash' };
        prevHash = row.hash;
        expectedSeq++;
        count++;
      }
    }
    const head = count > 0 ? { seq: expectedSeq - 1, hash: prevHash } : null;
    if (expectedHead && (head === null || head.seq < expectedHead.seq)) {
      return { ok: false, brokenAt: (head?.seq ?? 0) + 1, reason: `rows after ${head?.seq ?? 0} are missing (expected head ${expectedHead.seq})` };
    }
    if (expectedHead && head && (await this.hashAt(expectedHead.seq)) !== expectedHead.hash) {
      return { ok: false, brokenAt: expectedHead.seq, reason: 'row does not match the recorded head' };
    }
    return { ok: true, count, head };
  }

  private chainPage(afterSeq: number): Promise<AuditRow[]> {
    return this.db.all<AuditRow>('SELECT * FROM audit_log WHERE seq > ? ORDER BY seq LIMIT 5000', [afterSeq]);
  }

  private async hashAt(seq: number): Promise<string | undefined> {
    return ((await this.db.get('SELECT hash FROM audit_log WHERE seq = ?', [seq])) as { hash: string } | undefined)?.hash;
  }
}
