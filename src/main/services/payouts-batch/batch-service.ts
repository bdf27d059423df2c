// CSV payout batches: a draft is filled in chunks, then started; the runner sends its items. Every
// user action on a batch is audited (each item's payout gets its own payout.create entry too).
// Progress is pushed on 'batches:batch-changed', throttled, always ending with the latest state.
import type { BatchItemState, BatchItemView, BatchRowForm, BatchView } from '../../../shared/contract';
import { sumAmounts } from '../../../shared/money';
import type { Ledger } from '../../ledger/connection';
import type { AuditLog } from '../../ledger/repositories/audit-log';
import type { PayoutsRepository } from '../../ledger/repositories/payouts';
import type { Profile } from '../../ledger/repositories/profiles';
import type { Logger } from '../../logger';
import { ServiceError } from '../errors';
import type { EventBus } from '../event-bus';
import type { IdSource } from '../../gateway/runtime';
import type { AttemptService } from '../payments/attempt-service';
import { refuseSandboxPayouts, type PayoutService } from '../payments/payout-service';
import type { ProfileService } from '../profile-service';
import { acceptRows } from './batch-rows';
import { BatchRunner } from './batch-runner';
import { BatchStore, type BatchRecord } from './batch-store';

export interface BatchServiceDeps {
  db: Ledger;
  audit: AuditLog;
  payoutRows: Pick<PayoutsRepository, 'byMerchantReference'>;
  profiles: Pick<ProfileService, 'active' | 'require'>;
  payouts: Pick<PayoutService, 'session' | 'prepare' | 'send' | 'recorded'>;
  attempts: Pick<AttemptService, 'resume'>;
  events: EventBus;
  notificationUrl: (profile: Profile) => string;
  ids: IdSource;
  now: () => Date;
  log: Logger;
  concurrency?: number;
  /** Least time between two progress pushes of one batch. Default 200 ms. */
  progressIntervalMs?: number;
}

const OPEN_STATES = new Set(['running', 'paused']);

export class BatchService {
  private readonly store: BatchStore;
  private readonly runner: BatchRunner;
  private readonly totals = new Map<number, BatchView['totals']>();
  private readonly lastPublished = new Map<number, number>();
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: BatchServiceDeps) {
    this.store = new BatchStore(deps.db, deps.now);
    this.runner = new BatchRunner({
      db: deps.db,
      store: this.store,
      payouts: deps.payouts,
      attempts: deps.attempts,
      log: deps.log,
      concurrency: deps.concurrency,
      changed: (id) => this.schedulePublish(id),
      ended: (id) => this.publishNow(id),
    });
    // A batch's counters of paid and failed payouts follow its payouts' notifications and reads.
    this.unsubscribe = deps.events.subscribe((channel, payload) => {
      if (channel !== 'payouts:payout-changed') return;
      const batchId = this.store.batchOfPayoutRow((payload as { id: number }).id);
      if (batchId !== undefined) this.schedulePublish(batchId);
    });
  }

  create(input: { profileId?: string | undefined; fileName: string; rows: number }): BatchView {
    const profile = input.profileId === undefined ? this.deps.profiles.active() : this.deps.profiles.require(input.profileId);
    refuseSandboxPayouts(profile);
    const batch = this.store.createDraft({ profileId: profile.id, environment: profile.environment, fileName: input.fileName, declaredRows: input.rows });
    return this.view(batch);
  }

  addItems(input: { id: number; items: { line: number; form: BatchRowForm }[] }): { id: number; received: number; declared: number } {
    const batch = this.require(input.id);
    if (batch.state !== 'draft') throw new ServiceError('conflict', `Batch ${batch.id} has been started: rows can only be added to a draft.`);
    const profile = this.deps.profiles.require(batch.profileId);
    return this.deps.db.transaction(() => {
      const received = this.store.itemCount(batch.id);
      if (received + input.items.length > batch.declaredRows) {
        throw new ServiceError('invalid_input', `Batch ${batch.id} was declared with ${batch.declaredRows} rows; ${received + input.items.length} would be too many.`, { items: 'more rows than declared' });
      }
      const items = acceptRows(input.items, {
        profile,
        notificationUrl: this.deps.notificationUrl(profile),
        newReference: () => this.deps.ids.uuid(),
        referenceTaken: (reference) => this.store.hasReference(batch.id, reference) || this.deps.payoutRows.byMerchantReference(profile.id, reference) !== undefined,
        lineTaken: (line) => this.store.hasLine(batch.id, line),
      });
      this.store.addItems(batch.id, items);
      return { id: batch.id, received: received + items.length, declared: batch.declaredRows };
    })();
  }

  start(id: number): BatchView {
    const batch = this.require(id);
    if (batch.state !== 'draft') throw new ServiceError('conflict', `Batch ${id} has already been started.`);
    const profile = this.deps.profiles.require(batch.profileId);
    refuseSandboxPayouts(profile);
    const received = this.store.itemCount(id);
    if (received !== batch.declaredRows) throw new ServiceError('conflict', `Batch ${id} holds ${received} of its ${batch.declaredRows} rows: upload the rest before starting it.`);
    this.deps.db.transaction(() => {
      this.store.setState(id, 'running', { started: true, lastError: null });
      this.audit('batch.start', batch, { rows: received, totals: this.totalsOf(id), profile: profile.name });
    })();
    this.runner.run(id);
    return this.publishNow(id);
  }

  discard(id: number): { discarded: boolean } {
    return { discarded: this.store.deleteDraft(id) };
  }

  pause(id: number): BatchView {
    const batch = this.require(id);
    if (batch.state !== 'running') throw new ServiceError('conflict', `Batch ${id} is ${batch.state}: only a running batch can be paused.`);
    this.deps.db.transaction(() => {
      this.store.setState(id, 'paused');
      this.audit('batch.pause', batch, { counts: this.store.counts(id) });
    })();
    return this.publishNow(id);
  }

  /** A paused batch runs again; a finished or cancelled one settles its open items under their own keys. */
  resume(id: number, actor: 'user' | 'system' = 'user'): BatchView {
    const batch = this.require(id);
    const counts = this.store.counts(id);
    const open = counts.sending + counts.unknown;
    if (batch.state === 'draft') throw new ServiceError('conflict', `Batch ${id} has not been started.`);
    if (batch.state !== 'paused' && batch.state !== 'running' && open === 0) throw new ServiceError('conflict', `Batch ${id} is ${batch.state} and has no payout whose outcome is open: nothing to resume.`);
    this.deps.db.transaction(() => {
      if (batch.state === 'paused') this.store.setState(id, 'running', { lastError: null });
      this.audit('batch.resume', batch, { counts, open }, actor);
    })();
    this.runner.run(id);
    return this.publishNow(id);
  }

  /** Pending items are cancelled at once; items already sent are followed to their outcome. */
  cancel(id: number): BatchView {
    const batch = this.require(id);
    if (!OPEN_STATES.has(batch.state)) throw new ServiceError('conflict', `Batch ${id} is ${batch.state}: only a running or paused batch can be cancelled.`);
    this.deps.db.transaction(() => {
      const cancelled = this.store.cancelPending(id);
      this.store.setState(id, 'cancelled', { finished: true });
      this.audit('batch.cancel', batch, { cancelled, counts: this.store.counts(id) });
    })();
    return this.publishNow(id);
  }

  get(id: number): BatchView {
    return this.view(this.require(id));
  }

  list(input: { cursor?: number | null | undefined; limit?: number | undefined } = {}): { items: BatchView[]; nextCursor: number | null } {
    const limit = input.limit ?? 20;
    const rows = this.store.list(input.cursor ?? null, limit + 1);
    const page = rows.slice(0, limit);
    return { items: page.map((b) => this.view(b)), nextCursor: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
  }

  items(input: { id: number; states?: BatchItemState[] | undefined; afterLine?: number | null | undefined; limit?: number | undefined }): { items: BatchItemView[]; nextAfterLine: number | null } {
    this.require(input.id);
    const limit = input.limit ?? 200;
    const rows = this.store.page(input.id, input.states, input.afterLine ?? 0, limit + 1);
    const page = rows.slice(0, limit);
    return {
      items: page.map(({ form: _form, batchId: _batch, updatedAt: _updated, ...item }) => item),
      nextAfterLine: rows.length > limit ? (page.at(-1)?.line ?? null) : null,
    };
  }

  /**
   * At start-up, after interrupted attempts became "unknown": drafts (an upload the renderer
   * never finished) are dropped, and batches that were running or had items in flight go on.
   */
  recover(): number[] {
    for (const id of this.store.drafts()) this.store.deleteDraft(id);
    const ids = this.store.toResume();
    for (const id of ids) {
      const batch = this.store.batch(id);
      if (batch) this.audit('batch.resume', batch, { reason: 'start-up', counts: this.store.counts(id) }, 'system');
      this.runner.run(id);
    }
    return ids;
  }

  /** Resolves when no batch is being worked on (tests). */
  settled(): Promise<void> {
    return this.runner.settled();
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await this.runner.close();
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private require(id: number): BatchRecord {
    const batch = this.store.batch(id);
    if (!batch) throw new ServiceError('not_found', `No batch ${id}.`, { id: 'is not a batch of this ledger' });
    return batch;
  }

  private audit(action: string, batch: BatchRecord, details: Record<string, unknown>, actor: 'user' | 'system' = 'user'): void {
    this.deps.audit.append({ actor, action, profileId: batch.profileId, subject: `batch:${batch.id}`, details: { batchId: batch.id, fileName: batch.fileName, environment: batch.environment, ...details } });
  }

  /** Exact sums per currency; fixed once the batch has its rows. */
  private totalsOf(id: number): BatchView['totals'] {
    const cached = this.totals.get(id);
    if (cached) return cached;
    const byCurrency = new Map<string, string[]>();
    for (const { currency, amount } of this.store.amounts(id)) {
      const amounts = byCurrency.get(currency) ?? [];
      amounts.push(amount);
      byCurrency.set(currency, amounts);
    }
    const totals = [...byCurrency.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([currency, amounts]) => ({ currency, amount: sumAmounts(amounts), count: amounts.length }));
    if (this.store.batch(id)?.state !== 'draft') this.totals.set(id, totals);
    return totals;
  }

  private view(batch: BatchRecord): BatchView {
    const { id } = batch;
    let profileName = '(deleted profile)';
    try {
      profileName = this.deps.profiles.require(batch.profileId).name;
    } catch {
      // The batch outlives its profile in the ledger.
    }
    return {
      id,
      profileId: batch.profileId,
      profileName,
      environment: batch.environment,
      fileName: batch.fileName,
      state: batch.state,
      declaredRows: batch.declaredRows,
      total: this.store.itemCount(id),
      counts: this.store.counts(id),
      outcomes: this.store.outcomes(id),
      totals: this.totalsOf(id),
      lastError: batch.lastError,
      createdAt: batch.createdAt,
      updatedAt: batch.updatedAt,
      startedAt: batch.startedAt,
      finishedAt: batch.finishedAt,
    };
  }

  private publishNow(id: number): BatchView {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
    this.lastPublished.set(id, Date.now());
    const view = this.view(this.require(id));
    try {
      this.deps.events.publish('batches:batch-changed', view);
    } catch (error) {
      this.deps.log.error(`publishing batch ${id} failed`, error);
    }
    return view;
  }

  /** At most one push per interval, and always a last one after the latest change. */
  private schedulePublish(id: number): void {
    if (this.timers.has(id)) return;
    const interval = this.deps.progressIntervalMs ?? 200;
    const wait = (this.lastPublished.get(id) ?? 0) + interval - Date.now();
    if (wait <= 0) {
      this.publishNow(id);
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(id);
      if (this.store.batch(id)) this.publishNow(id);
    }, wait);
    timer.unref();
    this.timers.set(id, timer);
  }
}
