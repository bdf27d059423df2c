// The append-only audit log of user actions (payouts, settings, key changes). Each row's hash is
// SHA-256(previous hash + canonical content), so editing, removing or reordering any row (even
// with the triggers dropped) breaks the chain at that row. Truncating the newest rows is only
// detectable against a head recorded elsewhere: pass it to verify() as `expectedHead`.
import { GENESIS_HASH } from '../migrations/0005_audit_log';
import type { Ledger } from '../connection';
import { redact as redactForLedger } from '../../../shared/redact';
import { canonicalJson, isoTime, sha256Hex, systemClock, type Clock } from '../support';

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

/** The content a row's hash covers; seq is included so moving a row breaks the chain too. */
export function auditHash(prevHash: string, r: Omit<AuditRow, 'prev_hash' | 'hash'>): string {
  return sha256Hex(prevHash + canonicalJson([r.seq, r.at, r.actor, r.action, r.profile_id, r.subject, r.details]));
}

export class AuditLog {
  constructor(
    private readonly db: Ledger,
    private readonly now: Clock = systemClock,
  ) {}

  append(entry: NewAuditEntry): AuditEntry {
    return this.db.transaction(() => {
      const head = this.head();
      const row = {
        seq: (head?.seq ?? 0) + 1,
        at: isoTime(this.now()),
        actor: entry.actor,
        action: entry.action,
        profile_id: entry.profileId ?? null,
        subject: entry.subject ?? null,
        details: canonicalJson(redactForLedger(entry.details ?? {})),
      };
      const prevHash = head?.hash ?? GENESIS_HASH;
      const hash = auditHash(prevHash, row);
      this.db
        .prepare('INSERT INTO audit_log (seq, at, actor, action, profile_id, subject, details, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(row.seq, row.at, row.actor, row.action, row.profile_id, row.subject, row.details, prevHash, hash);
      return toEntry({ ...row, prev_hash: prevHash, hash });
    })();
  }

  head(): { seq: number; hash: string } | null {
    const row = this.db.prepare('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1').get() as { seq: number; hash: string } | undefined;
    return row ?? null;
  }

  /** Newest first. */
  list(options: { beforeSeq?: number; limit?: number } = {}): AuditEntry[] {
    const rows = this.db
      .prepare('SELECT * FROM audit_log WHERE seq < ? ORDER BY seq DESC LIMIT ?')
      .all(options.beforeSeq ?? Number.MAX_SAFE_INTEGER, Math.min(options.limit ?? 100, 1000)) as AuditRow[];
    return rows.map(toEntry);
  }

  /** Walks the whole chain in order and reports the first row that does not hold. */
  verify(expectedHead?: { seq: number; hash: string }): ChainVerdict {
    let prevHash = GENESIS_HASH;
    let expectedSeq = 1;
    let count = 0;
    for (const row of this.db.prepare('SELECT * FROM audit_log ORDER BY seq').iterate() as IterableIterator<AuditRow>) {
      if (row.seq !== expectedSeq) return { ok: false, brokenAt: row.seq, reason: `row ${expectedSeq} is missing` };
      if (row.prev_hash !== prevHash) return { ok: false, brokenAt: row.seq, reason: 'prev_hash does not match the previous row' };
      if (auditHash(prevHash, row) !== row.hash) return { ok: false, brokenAt: row.seq, reason: 'content does not match its hash' };
      prevHash = row.hash;
      expectedSeq++;
      count++;
    }
    const head = count > 0 ? { seq: expectedSeq - 1, hash: prevHash } : null;
    if (expectedHead && (head === null || head.seq < expectedHead.seq)) {
      return { ok: false, brokenAt: (head?.seq ?? 0) + 1, reason: `rows after ${head?.seq ?? 0} are missing (expected head ${expectedHead.seq})` };
    }
    if (expectedHead && head && this.hashAt(expectedHead.seq) !== expectedHead.hash) {
      return { ok: false, brokenAt: expectedHead.seq, reason: 'row does not match the recorded head' };
    }
    return { ok: true, count, head };
  }

  private hashAt(seq: number): string | undefined {
    return (this.db.prepare('SELECT hash FROM audit_log WHERE seq = ?').get(seq) as { hash: string } | undefined)?.hash;
  }
}
