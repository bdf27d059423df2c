// Approval policies (rules about amounts: amount-rules.ts) and requests for approval (migration
// 0016, docs/team.md "Approvals"). A decision is a compare-and-set from "awaiting": of two
// approvers deciding at once, or an approval racing its expiry or the maker's withdrawal, exactly
// one moves the row.
import type { ApprovalKind, ApprovalState, PolicyMode } from '../../../shared/contract';
import type { Sql } from '../engine/types';
import { isoTime, systemClock, type Clock, type StateMove } from '../support';
import { AmountRulesRepository, type AmountRule } from './amount-rules';
import { cursorNumber, placeholders, toPage, type Page, type PageAfter } from './page';

export type PolicyFields = { mode: PolicyMode; payoutAbove: string | null; batchAbove: string | null };
export type PolicyRule = AmountRule<PolicyFields>;

export class ApprovalPoliciesRepository extends AmountRulesRepository<PolicyFields> {
  constructor(db: Sql, now: Clock = systemClock) {
    super(db, { table: 'approval_policies', columns: { mode: 'mode', payoutAbove: 'payout_above', batchAbove: 'batch_above' } }, now);
  }
}

export interface NewApproval {
  kind: ApprovalKind;
  profileId: string;
  environment: string;
  /** The payout's merchantReference, or the batch's id. */
  subject: string;
  currency: string;
  /** Exact decimal text: the payout's amount, or the batch's total in this currency. */
  amount: string;
  itemCount: number;
  /** The reviewed body as the ledger keeps a request (card numbers masked); a batch's review digest. */
  body: string;
  /** HMAC-SHA256 of the full reviewed body (ApprovalDigest): what the approval is bound to. */
  bodyHash: string;
  /** The review as the approver sees it (JSON). */
  reviewed: string;
  /** The rule that applied and why (JSON). */
  policy: string;
  makerId: string;
  makerName: string;
  expiresAt: string;
}

export interface ApprovalRecord extends NewApproval {
  id: number;
  state: ApprovalState;
  reason: string | null;
  decidedById: string | null;
  decidedByName: string | null;
  idempotencyKey: string | null;
  createdAt: string;
  decidedAt: string | null;
}

interface ApprovalRow {
  id: number;
  kind: ApprovalKind;
  profile_id: string;
  environment: string;
  subject: string;
  currency: string;
  amount: string;
  item_count: number;
  body: string;
  body_hash: string;
  reviewed: string;
  policy: string;
  maker_id: string;
  maker_name: string;
  state: ApprovalState;
  reason: string | null;
  decided_by_id: string | null;
  decided_by_name: string | null;
  idempotency_key: string | null;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
}

const toApproval = (r: ApprovalRow): ApprovalRecord => ({
  id: Number(r.id),
  kind: r.kind,
  profileId: r.profile_id,
  environment: r.environment,
  subject: r.subject,
  currency: r.currency,
  amount: r.amount,
  itemCount: Number(r.item_count),
  body: r.body,
  bodyHash: r.body_hash,
  reviewed: r.reviewed,
  policy: r.policy,
  makerId: r.maker_id,
  makerName: r.maker_name,
  state: r.state,
  reason: r.reason,
  decidedById: r.decided_by_id,
  decidedByName: r.decided_by_name,
  idempotencyKey: r.idempotency_key,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  decidedAt: r.decided_at,
});

/** Who decided, and why (no person for Paydesk's own: a void). */
export interface Decision {
  reason: string | null;
  decidedById: string | null;
  decidedByName: string | null;
}

export class ApprovalsRepository {
  constructor(
    private readonly db: Sql,
    private readonly now: Clock = systemClock,
  ) {}

  async insert(approval: NewApproval): Promise<ApprovalRecord> {
    const row = (await this.db.get(`INSERT INTO approvals (kind, profile_id, environment, subject, currency, amount, item_count, body, body_hash, reviewed, policy, maker_id, maker_name, state, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'awaiting', ?, ?) RETURNING *`, [
      approval.kind, approval.profileId, approval.environment, approval.subject, approval.currency, approval.amount, approval.itemCount, approval.body, approval.bodyHash,
      approval.reviewed, approval.policy, approval.makerId, approval.makerName, isoTime(this.now()), approval.expiresAt,
    ])) as ApprovalRow;
    return toApproval(row);
  }

  async byId(id: number): Promise<ApprovalRecord | undefined> {
    const row = (await this.db.get('SELECT * FROM approvals WHERE id = ?', [id])) as ApprovalRow | undefined;
    return row && toApproval(row);
  }

  /** The approvals of one payout (by merchantReference) or batch (by id), oldest first. */
  async forSubject(kind: ApprovalKind, profileId: string, subject: string): Promise<ApprovalRecord[]> {
    return ((await this.db.all('SELECT * FROM approvals WHERE kind = ? AND profile_id = ? AND subject = ? ORDER BY id', [kind, profileId, subject])) as ApprovalRow[]).map(toApproval);
  }

  /** Newest first, in these states (all when empty), optionally only one maker's. */
  async page(filter: { states?: readonly ApprovalState[] | undefined; makerId?: string | undefined }, request: PageAfter): Promise<Page<ApprovalRecord>> {
    const states = filter.states && filter.states.length > 0 ? `AND state IN (${placeholders(filter.states)})` : '';
    const maker = filter.makerId !== undefined ? 'AND maker_id = ?' : '';
    const rows = (await this.db.all(`SELECT * FROM approvals WHERE id < ? ${states} ${maker} ORDER BY id DESC LIMIT ?`, [
      cursorNumber(request.cursor) ?? Number.MAX_SAFE_INTEGER,
      ...(filter.states ?? []),
      ...(filter.makerId !== undefined ? [filter.makerId] : []),
      request.limit + 1,
    ])) as ApprovalRow[];
    return toPage(rows.map(toApproval), request.limit, (approval) => [approval.id]);
  }

  /** Every approval of this kind awaiting a decision, oldest first. */
  async awaiting(kind: ApprovalKind): Promise<ApprovalRecord[]> {
    return ((await this.db.all("SELECT * FROM approvals WHERE kind = ? AND state = 'awaiting' ORDER BY id", [kind])) as ApprovalRow[]).map(toApproval);
  }

  async countAwaiting(): Promise<number> {
    const row = await this.db.get<{ n: number | string }>("SELECT count(*) AS n FROM approvals WHERE state = 'awaiting'");
    return Number(row?.n ?? 0);
  }

  /**
   * Records a decision (services/approvals/approval-states.ts says which), only while the approval
   * is still in a state it moves from and (with `notExpiredAt`) not expired; false when another
   * decision, a withdrawal or the expiry came first.
   */
  async decide(id: number, move: StateMove<ApprovalState>, decision: Decision, notExpiredAt?: Date): Promise<boolean> {
    const at = isoTime(this.now());
    const expiry = notExpiredAt ? 'AND expires_at > ?' : '';
    return (
      (await this.db.run(`UPDATE approvals SET state = ?, reason = ?, decided_by_id = ?, decided_by_name = ?, decided_at = ? WHERE id = ? AND state IN (${placeholders(move.from)}) ${expiry}`, [
        move.to, decision.reason, decision.decidedById, decision.decidedByName, at, id, ...move.from, ...(notExpiredAt ? [isoTime(notExpiredAt)] : []),
      ])) === 1
    );
  }

  /** The Idempotency-Key an approval sent its payout under. */
  async setKey(id: number, key: string): Promise<void> {
    await this.db.run('UPDATE approvals SET idempotency_key = ? WHERE id = ?', [key, id]);
  }

  /** Approvals past their expiry, moved (from awaiting to expired) as of their expiry time; their ids. */
  async expireDue(move: StateMove<ApprovalState>, at: Date): Promise<number[]> {
    const rows = await this.db.all<{ id: number }>(`UPDATE approvals SET state = ?, decided_at = expires_at WHERE state IN (${placeholders(move.from)}) AND expires_at <= ? RETURNING id`, [move.to, ...move.from, isoTime(at)]);
    return rows.map((r) => Number(r.id));
  }

  /** When the next awaiting approval expires, if any awaits. */
  async nextExpiry(): Promise<string | undefined> {
    const row = await this.db.get<{ at: string | null }>("SELECT min(expires_at) AS at FROM approvals WHERE state = 'awaiting'");
    return row?.at ?? undefined;
  }

  /** The awaiting approval of a subject, if any. */
  async awaitingFor(kind: ApprovalKind, profileId: string, subject: string): Promise<ApprovalRecord | undefined> {
    const row = (await this.db.get("SELECT * FROM approvals WHERE kind = ? AND profile_id = ? AND subject = ? AND state = 'awaiting' ORDER BY id DESC LIMIT 1", [kind, profileId, subject])) as ApprovalRow | undefined;
    return row && toApproval(row);
  }
}
