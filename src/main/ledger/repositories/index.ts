// The ledger's repositories, built together on one engine (engine/types.ts) and one clock, with the unit of
// work that makes several of their writes one transaction. Every SQL statement of main is in
// src/main/ledger: services call these and never the connection.
import type { Sql } from '../engine/types';
import { systemClock, type Clock } from '../support';
import { ApprovalPoliciesRepository, ApprovalsRepository } from './approvals';
import { AttemptsRepository, type Attempt } from './attempts';
import { AuditLog } from './audit-log';
import { BatchEventsRepository } from './batch-events';
import { BatchesRepository } from './batches';
import { CardsRepository } from './cards';
import { CodeUsageRepository } from './code-usage';
import { ExceptionsRepository } from './exceptions';
import { InstancesRepository } from './instances';
import { LimitsRepository } from './limits';
import { NotificationRetentionRepository } from './notification-retention';
import { NoticesRepository } from './notices';
import { NoticeWatchesRepository } from './notice-watches';
import { NotificationsRepository } from './notifications';
import { PayinsRepository, type PayinRecord } from './payins';
import { PayoutsRepository, type PayoutRecord } from './payouts';
import type { StatusColumns } from './transactions';
import { ProfilesRepository } from './profiles';
import { ReviewsRepository } from './reviews';
import { SettingsRepository } from './settings';
import { StatusReadsRepository } from './status-reads';
import { ServerSecretsRepository, TeamRepository } from './team';
import { TokensRepository } from './tokens';
import { TotalsRepository } from './totals';
import { WatchesRepository } from './watches';
import { BankLinesRepository } from './bank-lines';
import { SettlementLinesRepository } from './settlement-lines';
import { StatementBreaksRepository } from './statement-breaks';
import { StatementFilesRepository } from './statement-files';

/**
 * Runs `fn` as one transaction: its writes commit together, or none does when it throws (and the
 * error goes on). A call inside another joins it as a savepoint, rolled back alone if it throws.
 */
export type Transaction = <T>(fn: () => Promise<T>) => Promise<T>;

export interface Repositories {
  profiles: ProfilesRepository;
  attempts: AttemptsRepository;
  payins: PayinsRepository;
  payouts: PayoutsRepository;
  cards: CardsRepository;
  tokens: TokensRepository;
  notifications: NotificationsRepository;
  statusReads: StatusReadsRepository;
  audit: AuditLog;
  settings: SettingsRepository;
  limits: LimitsRepository;
  batches: BatchesRepository;
  batchEvents: BatchEventsRepository;
  retention: NotificationRetentionRepository;
  codeUsage: CodeUsageRepository;
  exceptions: ExceptionsRepository;
  totals: TotalsRepository;
  team: TeamRepository;
  serverSecrets: ServerSecretsRepository;
  approvals: ApprovalsRepository;
  approvalPolicies: ApprovalPoliciesRepository;
  instances: InstancesRepository;
  /** The reviews live sends redeem (services/payments/review-gate.ts), honoured by every instance. */
  reviews: ReviewsRepository;
  /** Statements (docs/statements.md): files and imports, settlement and bank lines, their break queues. */
  statementFiles: StatementFilesRepository;
  settlementLines: SettlementLinesRepository;
  bankLines: BankLinesRepository;
  statementBreaks: StatementBreaksRepository;
  /** What Paydesk tells each person (docs/notifications.md): their inbox. */
  notices: NoticesRepository;
  /** What the watches ask: approvals due a reminder or an escalation, live profiles gone silent, told already. */
  watches: WatchesRepository;
  noticeWatches: NoticeWatchesRepository;
  /** The unit of work: services make several writes atomic through this, never on the connection. */
  transaction: Transaction;
  /**
   * A unit of work that PostgreSQL may roll back as a deadlock's victim (or as a serialisation
   * failure) when other instances or background work lock the same rows in another order: run
   * again whole, a few times. Only for work with no effect outside the ledger, started outside any
   * transaction (a status read's record and apply).
   */
  transactionRetried: Transaction;
}

/** PostgreSQL rolled the whole transaction back (deadlock victim, serialisation failure): running it again is safe. */
function rolledBackByConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

const CONFLICT_TRIES = 4;

export interface RepositoryOptions {
  /** On a team server: the person whose request is being served (the audit log records them as its actor). */
  person?: () => string | undefined;
  /** This process's instance id (services/scale-out/instance.ts): recorded on the attempts it sends and the batches it runs. */
  instance?: string;
  /** Told of what the ledger records in a transaction, inside it (the notices an event causes, services/notices). */
  events?: LedgerEvents;
}

/** What the repositories tell, in the transaction that records it. */
export interface LedgerEvents {
  payoutStatusWritten(before: StatusColumns, record: PayoutRecord): Promise<void>;
  payinStatusWritten(before: StatusColumns, record: PayinRecord): Promise<void>;
  attemptUnknown(attempt: Attempt, why: string): Promise<void>;
}

export function createRepositories(db: Sql, now: Clock = systemClock, options: RepositoryOptions = {}): Repositories {
  return {
    profiles: new ProfilesRepository(db, now),
    attempts: new AttemptsRepository(db, now, options.instance ?? null, options.events && ((attempt, why) => options.events!.attemptUnknown(attempt, why))),
    payins: new PayinsRepository(db, now, options.events && ((before, record) => options.events!.payinStatusWritten(before, record))),
    payouts: new PayoutsRepository(db, now, options.events && ((before, record) => options.events!.payoutStatusWritten(before, record))),
    cards: new CardsRepository(db),
    tokens: new TokensRepository(db, now),
    notifications: new NotificationsRepository(db, now),
    statusReads: new StatusReadsRepository(db),
    audit: new AuditLog(db, now, options.person),
    settings: new SettingsRepository(db, now),
    limits: new LimitsRepository(db, now),
    batches: new BatchesRepository(db, now, options.instance ?? null),
    batchEvents: new BatchEventsRepository(db),
    retention: new NotificationRetentionRepository(db, now),
    codeUsage: new CodeUsageRepository(db),
    exceptions: new ExceptionsRepository(db),
    totals: new TotalsRepository(db),
    team: new TeamRepository(db, now),
    serverSecrets: new ServerSecretsRepository(db, now),
    approvals: new ApprovalsRepository(db, now),
    approvalPolicies: new ApprovalPoliciesRepository(db, now),
    instances: new InstancesRepository(db, now),
    reviews: new ReviewsRepository(db),
    statementFiles: new StatementFilesRepository(db),
    settlementLines: new SettlementLinesRepository(db),
    bankLines: new BankLinesRepository(db),
    statementBreaks: new StatementBreaksRepository(db),
    notices: new NoticesRepository(db, now),
    watches: new WatchesRepository(db),
    noticeWatches: new NoticeWatchesRepository(db, now),
    transaction: (fn) => db.transaction(fn),
    transactionRetried: async (fn) => {
      for (let tries = 1; ; tries++) {
        try {
          return await db.transaction(fn);
        } catch (error) {
          if (tries >= CONFLICT_TRIES || !rolledBackByConflict(error)) throw error;
          // A short pause, different each time, so the transactions that met do not meet again.
          await new Promise((resolve) => setTimeout(resolve, tries * 15 + Math.random() * 25));
        }
      }
    },
  };
}
