// What a ledger restored from a backup must know about itself (`npm run server -- restore`,
// server/backup.ts; docs/team.md, "Backups and restore"). It is the ledger as of the backup's
// snapshot: what the team did after it (payouts sent, decisions, sign-outs) is not in it, though
// the gateway may hold its effects. So, once the restore is verified, in one transaction:
// - a mark (a settings row): the backup's time and the highest batch id it holds. Every batch up
//   to that id has its unsent payouts looked up at the gateway by merchantReference before any is
//   sent (BatchRunner: each is settled under its own key, sent only where the gateway has none),
//   since the server that made the backup may have sent them after it;
// - payout approvals awaiting a decision are void: one may have been approved, and its payout
//   sent, after the backup, and approving it again would send a second one under a new key (a
//   batch's approval stays: its payouts are looked up first);
// - every session ends (one ended after the backup would otherwise open again): people sign in
//   again with their passwords;
// - the instances are forgotten: none runs on this copy, so the first server started on it takes
//   over at once what they held (their sends in flight become unknown and are settled under their
//   own keys, their batches go on).
// Each of these is audited in one entry.
import type { Repositories } from '../ledger/repositories/index';
import { approvalAuditEntry } from './approvals/approval-records';
import { approvalMove } from './approvals/approval-states';

const MARK = 'ledger.restored';

export interface RestoreMark {
  /** When the backup's snapshot was taken (the database's clock). */
  backupTakenAt: string;
  restoredAt: string;
  /** The Paydesk that made the backup. */
  backupBy: string;
  /** Every batch at or below this id was in the backup. */
  batchesUpTo: number;
}

export interface RestoreReport {
  sessionsEnded: number;
  approvalsVoided: number;
  instancesForgotten: number;
  /** Batches running or paused, whose unsent payouts are looked up before they are sent. */
  batchesToCheck: number;
}

export async function recordRestore(repos: Repositories, backup: { takenAt: string; paydeskVersion: string }, now: () => Date): Promise<RestoreReport> {
  return repos.transaction(async () => {
    const mark: RestoreMark = { backupTakenAt: backup.takenAt, restoredAt: now().toISOString(), backupBy: backup.paydeskVersion, batchesUpTo: await repos.batches.highestId() };
    await repos.settings.put(new Map([[MARK, JSON.stringify(mark)]]));
    const reason = `restored from a backup taken at ${backup.takenAt}: it may have been decided after the backup; submit it again if its payout is not at the gateway`;
    let approvalsVoided = 0;
    for (const approval of await repos.approvals.awaiting('payout')) {
      if (!(await repos.approvals.decide(approval.id, approvalMove('awaiting', 'voided'), { reason, decidedById: null, decidedByName: null }))) continue;
      await repos.audit.append(approvalAuditEntry(approval, 'approval.void', { approvalId: approval.id, maker: approval.makerName, reason }, 'system'));
      approvalsVoided++;
    }
    const report: RestoreReport = {
      sessionsEnded: await repos.team.revokeAllSessions(),
      approvalsVoided,
      instancesForgotten: await repos.instances.forgetAll(),
      batchesToCheck: await repos.batches.countUnfinished(),
    };
    await repos.audit.append({ actor: 'system', action: 'ledger.restore', details: { ...mark, ...report } });
    return report;
  });
}

/** The mark of the latest restore, if this ledger was restored from a backup. */
export async function restoreMark(repos: Pick<Repositories, 'settings'>): Promise<RestoreMark | undefined> {
  const text = await repos.settings.get(MARK);
  return text === undefined ? undefined : (JSON.parse(text) as RestoreMark);
}

/**
 * Why this batch's unsent payouts are looked up at the gateway before they are sent, or null: it was
 * in the backup this ledger was restored from.
 */
export async function lookUpBeforeSending(repos: Pick<Repositories, 'settings'>, batchId: number): Promise<string | null> {
  const mark = await restoreMark(repos);
  return mark && batchId <= mark.batchesUpTo ? `restored from a backup taken at ${mark.backupTakenAt}: looked up at the gateway before it is sent` : null;
}
