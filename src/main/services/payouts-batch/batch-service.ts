// CSV payout batches: a draft is filled in chunks, then started; the runner sends its items. Every
// user action on a batch is audited (each item's payout gets its own payout.create entry too), and
// every change of its course is in its history: starts, pauses, resumes (by a person or at
// start-up), cancels, the end, and each time the app stopped while it ran.
// Progress is pushed on 'batches:batch-changed', throttled, always ending with the latest state.
// A live batch starts, and is resumed by a person, only with the proof of its review
// (batches:review): the batch, its count, its totals per currency and a digest of its items.
import { createHash } from 'node:crypto';
import { BATCH_HISTORY_SHOWN, type ApprovalNeed, type BatchCheckView, type BatchItemState, type BatchItemView, type BatchReviewView, type BatchRowForm, type BatchState, type BatchView, type LeftOutRowView, type PayoutMatch } from '../../../shared/contract';
import { totalsByCurrency } from '../../../shared/money';
import type { BatchRecord } from '../../ledger/repositories/batches';
import type { Repositories } from '../../ledger/repositories/index';
import type { Profile } from '../../ledger/repositories/profiles';
import type { Logger } from '../../logger';
import { ServiceError } from '../errors';
import type { EventBus } from '../event-bus';
import type { IdSource } from '../../gateway/runtime';
import type { AttemptService } from '../payments/attempt-service';
import { describeMatches, unconfirmed, type DuplicateGuard } from '../payments/duplicate-guard';
import { refuseSandboxPayouts, type PayoutService } from '../payments/payout-service';
import type { ReviewGate, ReviewProof, ReviewSubject } from '../payments/review-gate';
import { reviewTicket } from '../payments/review-views';
import type { Notices } from '../notices/notices';
import type { ProfileService } from '../profile-service';
import { BatchHistory, type BatchInstance } from './batch-history';
import { acceptRows } from './batch-rows';
import { BatchRunner } from './batch-runner';
import { lookUpBeforeSending } from '../ledger-restore';
import { BATCH_MOVES, OPEN_ITEMS, batchMove, itemMove } from './batch-states';
import { canMove, isFinal, type Move } from '../state-machine';
import { numberedPage, numberCursor } from '../numbered-pages';

export interface BatchServiceDeps {
  repos: Pick<Repositories, 'batches' | 'batchEvents' | 'audit' | 'payouts' | 'settings' | 'transaction' | 'instances'>;
  profiles: Pick<ProfileService, 'require' | 'forSending'>;
  /** Tells a batch that finished with refusals or unknown outcomes, with its end (services/notices). */
  notices?: Pick<Notices, 'batchFinished'>;
  payouts: Pick<PayoutService, 'session' | 'prepare' | 'send' | 'recorded'>;
  attempts: Pick<AttemptService, 'settle'>;
  reviews: ReviewGate;
  /** Earlier payouts a row may repeat (services/payments/duplicate-guard.ts). */
  duplicates: Pick<DuplicateGuard, 'matches' | 'windowDays'>;
  events: EventBus;
  notificationUrl: (profile: Profile) => string;
  ids: IdSource;
  now: () => Date;
  log: Logger;
  /** What the approval policy asks of a start (services/approvals); nothing when absent. */
  approvals?: BatchApprovals;
  concurrency?: number;
  /** This instance, on a ledger several share (PostgreSQL): the history says which one resumed or took over a batch. */
  instance?: BatchInstance | null;
  /** Least time between two progress pushes of one batch. Default 200 ms. */
  progressIntervalMs?: number;
}

/** The approval policy as a batch meets it (services/approvals). */
export interface BatchApprovals {
  forBatch(profile: Profile, totals: readonly { currency: string; amount: string }[]): Promise<ApprovalNeed>;
  requireTypedAmount(need: ApprovalNeed, typed: string | undefined): void;
  /** Whether the batch awaits a decision: then only its approval starts it, and it is kept at start-up. */
  awaiting(profileId: string, batchId: number): Promise<boolean>;
  /** The batch changed or went away while it awaited a decision: its approval no longer holds. */
  voidFor(profileId: string, batchId: number, why: string): Promise<void>;
}

/** A complete draft as an approval covers it: its review's content (the digest of every item) and totals. */
export interface BatchApprovalSubject {
  batch: BatchRecord;
  profile: Profile;
  content: string;
  totals: BatchView['totals'];
  rows: number;
}

/** Payout rows whose batch is remembered (BatchService.batchOfPayoutRow), the oldest forgotten first. */
const REMEMBERED_PAYOUT_ROWS = 10_000;

const NO_APPROVAL: ApprovalNeed = { step: 'none', policy: null, amount: null, currency: null };

/** What a start sends (every item of the draft) and what a resume may send or settle. */
const START_STATES: readonly BatchItemState[] = ['pending'];
const RESUME_STATES: readonly BatchItemState[] = ['pending', ...OPEN_ITEMS];
const CANCEL_PENDING = itemMove('pending', 'cancelled');

const ROWS_TO_DRAFTS = 'has been started: rows can only be added to a draft.';
const STARTED_ONCE = 'has already been started.';

/** Refuses a batch that is no longer a draft, saying `refusal` after its name. */
function requireDraft(batch: BatchRecord, refusal: string): void {
  if (batch.state !== 'draft') throw new ServiceError('conflict', `Batch ${batch.id} ${refusal}`);
}

/** A batch made live, or whose profile is live now, is treated as live. */
const liveEither = (a: BatchRecord['environment'], b: BatchRecord['environment']) => (a === 'live' || b === 'live' ? 'live' : b);

export class BatchService {
  private readonly history: BatchHistory;
  private readonly runner: BatchRunner;
  private readonly totals = new Map<number, BatchView['totals']>();
  private readonly lastPublished = new Map<number, number>();
  private readonly timers = new Map<number, NodeJS.Timeout>();
  /** Each batch's push being read, so the next one reads after it. */
  private readonly publishing = new Map<number, Promise<unknown>>();
  /** The batch of each payout row looked up lately (null: none); a payout is pushed several times. */
  private readonly batchOfRow = new Map<number, number | null>();
  private unsubscribe: () => void = () => {};
  private closed: Promise<void> | undefined;

  constructor(private readonly deps: BatchServiceDeps) {
    const { batches, batchEvents, transaction } = deps.repos;
    this.history = new BatchHistory(batchEvents, deps.now, (id) => batches.counts(id), deps.instance ?? null, deps.notices && ((id, counts) => deps.notices!.batchFinished(id, counts)));
    this.runner = new BatchRunner({
      transaction,
      batches,
      history: this.history,
      payouts: deps.payouts,
      attempts: deps.attempts,
      log: deps.log,
      concurrency: deps.concurrency,
      // A restored ledger's batches: what the server that made the backup may have sent after it is looked up first.
      lookUpFirst: (id) => lookUpBeforeSending(deps.repos, id),
      changed: (id) => this.schedulePublish(id),
      ended: (id) => void this.publishSafely(id),
      // Its pushes are looked up no further.
      sending: (batchId, payoutRowId) => this.rememberBatchOf(payoutRowId, batchId),
    });
  }

  /** From now on, a batch's counters of paid and failed payouts follow its payouts' notifications and reads. */
  followPayouts(): void {
    this.unsubscribe = this.deps.events.subscribe((channel, payload) => {
      if (channel !== 'payouts:payout-changed') return;
      this.batchOfPayoutRow((payload as { id: number }).id)
        .then((batchId) => {
          if (batchId !== null) this.schedulePublish(batchId);
        })
        .catch((error: unknown) => this.deps.log.error('finding the batch of a changed payout failed', error));
    });
  }

  async create(input: { profileId?: string | undefined; fileName: string; rows: number; leftOut?: number | undefined }): Promise<BatchView> {
    const profile = await this.deps.profiles.forSending(input.profileId);
    refuseSandboxPayouts(profile);
    const batch = await this.deps.repos.transaction(async () => {
      const draft = await this.deps.repos.batches.createDraft({ profileId: profile.id, environment: profile.environment, fileName: input.fileName, declaredRows: input.rows, leftOutRows: input.leftOut ?? 0 });
      // Filled through this instance: another one's start leaves it alone while this one lives.
      await this.deps.repos.batches.runHere(draft.id);
      return draft;
    });
    return this.view(batch);
  }

  /**
   * The check step's question to the ledger, for rows the renderer found sendable: the earlier
   * payouts each may repeat, and the payout that already holds its merchantReference. Stores nothing.
   */
  async check(input: { profileId?: string | undefined; items: { line: number; form: BatchRowForm }[] }): Promise<BatchCheckView> {
    const profile = await this.deps.profiles.forSending(input.profileId);
    const references = [...new Set(input.items.flatMap(({ form }) => (form.merchantReference ? [form.merchantReference.trim()] : [])))];
    const used = new Map<string, PayoutMatch>();
    for (const reference of await this.deps.repos.payouts.referencesTaken(profile.id, references)) {
      const payout = await this.deps.repos.payouts.byMerchantReference(profile.id, reference);
      if (payout) used.set(reference, { id: payout.id, merchantReference: reference, amount: payout.amount, currency: payout.currency, statusCode: payout.statusCode, createdAt: payout.createdAt });
    }
    const duplicates = await this.deps.duplicates.matches(profile.id, input.items.map(({ form }) => candidateOf(form)));
    return {
      windowDays: await this.deps.duplicates.windowDays(),
      items: input.items.map(({ line, form }, i) => ({ line, duplicates: duplicates[i] ?? [], referenceUsedBy: (form.merchantReference && used.get(form.merchantReference.trim())) || null })),
    };
  }

  async addItems(input: { id: number; items: { line: number; form: BatchRowForm; confirmedDuplicateOf?: number[] | undefined }[] }): Promise<{ id: number; received: number; declared: number }> {
    const batch = await this.require(input.id);
    requireDraft(batch, ROWS_TO_DRAFTS);
    const profile = await this.deps.profiles.require(batch.profileId);
    return this.deps.repos.transaction(async () => {
      // Read again in the transaction: another call may have started it while this one was reading.
      requireDraft(await this.requireForChange(batch.id), ROWS_TO_DRAFTS);
      const received = await this.deps.repos.batches.itemCount(batch.id);
      if (received + input.items.length > batch.declaredRows) {
        throw new ServiceError('invalid_input', `Batch ${batch.id} was declared with ${batch.declaredRows} rows; ${received + input.items.length} would be too many.`, { items: 'more rows than declared' });
      }
      // What the ledger holds of the chunk's lines and given references, read at once rather than row by row.
      const { batches, payouts } = this.deps.repos;
      const takenIn = async (references: readonly string[]) => new Set([...(await batches.referencesTaken(batch.id, references)), ...(await payouts.referencesTaken(profile.id, references))]);
      const given = new Set(input.items.flatMap(({ form }) => (typeof form.merchantReference === 'string' ? [form.merchantReference] : [])));
      const takenGiven = await takenIn([...given]);
      const takenLines = await batches.fileLinesTaken(batch.id, input.items.map((item) => item.line));
      // Each row's earlier payouts: one it may repeat is stored only when the person confirmed it.
      const matches = await this.deps.duplicates.matches(profile.id, input.items.map(({ form }) => candidateOf(form)));
      const items = await acceptRows(
        input.items.map((item, i) => ({ ...item, duplicates: matches[i] ?? [] })),
        {
          profile,
          notificationUrl: this.deps.notificationUrl(profile),
          newReference: () => this.deps.ids.uuid(),
          referenceTaken: async (reference) => (given.has(reference) ? takenGiven.has(reference) : (await takenIn([reference])).has(reference)),
          lineTaken: async (line) => takenLines.has(line),
          duplicateProblem: async (row) => {
            const open = unconfirmed(row.duplicates ?? [], row.confirmedDuplicateOf);
            if (open.length === 0) return null;
            return `may pay the same people twice: ${describeMatches(open)} went to the same account with the same amount and currency within the last ${await this.deps.duplicates.windowDays()} days. Confirm it on its row to send it anyway.`;
          },
        },
      );
      await this.deps.repos.batches.addItems(batch.id, items);
      await this.deps.approvals?.voidFor(batch.profileId, batch.id, 'rows were added to the batch after it was submitted');
      return { id: batch.id, received: received + items.length, declared: batch.declaredRows };
    });
  }

  /** The file's rows a draft does not send, with why: kept with its record, counted before it starts. */
  async addLeftOut(input: { id: number; rows: { line: number; reason: string }[] }): Promise<{ id: number; received: number; declared: number }> {
    const batch = await this.require(input.id);
    requireDraft(batch, ROWS_TO_DRAFTS);
    return this.deps.repos.transaction(async () => {
      requireDraft(await this.requireForChange(batch.id), ROWS_TO_DRAFTS);
      const { batches } = this.deps.repos;
      const received = await batches.leftOutCount(batch.id);
      if (received + input.rows.length > batch.leftOutRows) {
        throw new ServiceError('invalid_input', `Batch ${batch.id} was declared with ${batch.leftOutRows} rows left out; ${received + input.rows.length} would be too many.`, { rows: 'more left-out rows than declared' });
      }
      const lines = input.rows.map((row) => row.line);
      const taken = await batches.fileLinesTaken(batch.id, lines);
      const repeated = lines.filter((line, i) => taken.has(line) || lines.indexOf(line) !== i);
      if (repeated.length > 0) throw new ServiceError('invalid_input', `Line ${repeated[0]} is already in batch ${batch.id}.`, Object.fromEntries(repeated.map((line) => [`rows.${line}.line`, 'is already in this batch'])));
      await batches.addLeftOut(batch.id, input.rows);
      await this.deps.approvals?.voidFor(batch.profileId, batch.id, 'rows were added to the batch after it was submitted');
      return { id: batch.id, received: received + input.rows.length, declared: batch.leftOutRows };
    });
  }

  async leftOut(input: { id: number; afterLine?: number | null | undefined; limit?: number | undefined }): Promise<{ items: LeftOutRowView[]; nextAfterLine: number | null }> {
    await this.require(input.id);
    const page = numberedPage(await this.deps.repos.batches.leftOutPage(input.id, { cursor: numberCursor(input.afterLine), limit: input.limit ?? 200 }));
    return { items: page.items, nextAfterLine: page.next };
  }

  /**
   * The review step of a start (a complete draft) or a resume (a paused batch, or one with items
   * still open): what it will send, and the review id a live start or resume needs. Sends nothing.
   */
  async review(id: number): Promise<BatchReviewView> {
    const batch = await this.require(id);
    const profile = await this.deps.profiles.require(batch.profileId);
    refuseSandboxPayouts(profile);
    const action = batch.state === 'draft' ? 'start' : 'resume';
    if (action === 'start') await this.requireComplete(batch);
    else await this.requireResumable(batch);
    const counts = await this.deps.repos.batches.counts(id);
    return {
      ...(await this.deps.reviews.issue(await this.reviewSubject(batch, action))),
      ...reviewTicket(profile, this.deps.notificationUrl(profile)),
      action,
      batch: await this.view(batch),
      sends: { pending: counts.pending, open: counts.sending + counts.unknown },
      approval: action === 'start' ? await this.approvalNeed(profile, id) : NO_APPROVAL,
    };
  }

  /**
   * Starts a complete draft: a live one only with the proof of its review. One the approval policy
   * holds back is refused before its review is spent (submit it for approval on a team server,
   * type its total on a desk), and so is one that awaits a decision: only its approval starts it.
   */
  async start(id: number, proof: ReviewProof = {}): Promise<BatchView> {
    const batch = await this.require(id);
    requireDraft(batch, STARTED_ONCE);
    const profile = await this.deps.profiles.require(batch.profileId);
    refuseSandboxPayouts(profile);
    const received = await this.requireComplete(batch);
    if (await this.deps.approvals?.awaiting(profile.id, id)) throw new ServiceError('conflict', `Batch ${id} awaits approval: it starts when an approver approves it.`);
    const need = await this.approvalNeed(profile, id);
    if (need.step === 'approval') throw new ServiceError('conflict', `Nothing was sent: ${need.policy ?? 'the approval policy'} Submit the batch for approval; another person with the approver role starts it.`, { reviewId: 'submit for approval instead' });
    this.deps.approvals?.requireTypedAmount(need, proof.typedAmount);
    await this.deps.reviews.redeem(proof, await this.reviewSubject(batch, 'start'), liveEither(batch.environment, profile.environment));
    const details = { ...(proof.reviewId ? { reviewId: proof.reviewId } : {}), ...(need.step === 'typed_amount' ? { confirmedByTypedAmount: need.policy } : {}) };
    return this.begin(batch, profile, received, details);
  }

  /** A complete draft as its approval covers it (ApprovalService.requestBatch and approve). */
  async approvalSubject(id: number): Promise<BatchApprovalSubject> {
    const batch = await this.require(id);
    requireDraft(batch, STARTED_ONCE);
    const profile = await this.deps.profiles.require(batch.profileId);
    refuseSandboxPayouts(profile);
    const rows = await this.requireComplete(batch);
    return { batch, profile, rows, content: (await this.reviewSubject(batch, 'start')).content, totals: await this.totalsOf(id) };
  }

  /**
   * Starts a batch an approver approved: `decided` records the decision first in the start's
   * transaction (it throws when the approval no longer holds, and nothing starts), so of two
   * approvers at once the second is refused by the decision, not by the batch the first started.
   */
  async startApproved(subject: BatchApprovalSubject, decided: () => Promise<void>, details: Record<string, unknown>): Promise<BatchView> {
    return this.begin(subject.batch, subject.profile, subject.rows, details, decided);
  }

  /** A draft is dropped (its approval, if one awaited, no longer holds). */
  async discard(id: number): Promise<{ discarded: boolean }> {
    const batch = await this.deps.repos.batches.batch(id);
    return this.deps.repos.transaction(async () => {
      const discarded = await this.deps.repos.batches.deleteDraft(id);
      if (discarded && batch) await this.deps.approvals?.voidFor(batch.profileId, id, 'the batch was discarded');
      return { discarded };
    });
  }

  private async begin(batch: BatchRecord, profile: Profile, received: number, details: Record<string, unknown>, inTransaction?: () => Promise<void>): Promise<BatchView> {
    const id = batch.id;
    await this.deps.repos.transaction(async () => {
      // Read again, as in addItems, and locked (batch before approval, as a discard takes them); judged after the decision.
      const current = await this.requireForChange(id);
      await inTransaction?.();
      requireDraft(current, STARTED_ONCE);
      await this.moveBatch(id, batchMove(current.state, 'running'), { started: true, lastError: null });
      await this.deps.repos.batches.runHere(id);
      await this.history.record(id, 'started', 'user');
      const confirmed = await this.deps.repos.batches.confirmedDuplicates(id);
      await this.audit('batch.start', batch, { rows: received, leftOut: batch.leftOutRows, confirmedDuplicates: confirmed.length, totals: await this.totalsOf(id), profile: profile.name, ...details });
      // Each row a person confirmed may repeat an earlier payout: who confirmed it, which payouts.
      for (const item of confirmed) {
        await this.deps.repos.audit.append({
          actor: 'user',
          action: 'payout.duplicate_confirmed',
          profileId: batch.profileId,
          subject: item.merchantReference,
          details: { batchId: id, line: item.line, amount: item.amount, currency: item.currency, destination: item.destination, duplicateOf: JSON.parse(item.duplicateOf ?? '[]') as unknown },
        });
      }
    });
    this.runner.run(id);
    return this.publishNow(id);
  }

  private async approvalNeed(profile: Profile, id: number): Promise<ApprovalNeed> {
    return (await this.deps.approvals?.forBatch(profile, await this.totalsOf(id))) ?? NO_APPROVAL;
  }

  async pause(id: number): Promise<BatchView> {
    const batch = await this.require(id);
    await this.deps.repos.transaction(async () => {
      // Read in the transaction: the runner may end or pause the batch meanwhile.
      const current = await this.requireForChange(id);
      if (!canMove(BATCH_MOVES, current.state, 'paused')) throw new ServiceError('conflict', `Batch ${id} is ${current.state}: only a running batch can be paused.`);
      await this.moveBatch(id, batchMove(current.state, 'paused'));
      await this.history.record(id, 'paused', 'user');
      await this.audit('batch.pause', batch, { counts: await this.deps.repos.batches.counts(id) });
    });
    return this.publishNow(id);
  }

  /**
   * A paused batch runs again; a finished or cancelled one settles its open items under their own
   * keys. A person's resume of a live batch needs the proof of its review.
   */
  async resume(id: number, proof: ReviewProof = {}): Promise<BatchView> {
    const batch = await this.require(id);
    const counts = await this.deps.repos.batches.counts(id);
    const open = await this.requireResumable(batch);
    const profile = await this.deps.profiles.require(batch.profileId);
    await this.deps.reviews.redeem(proof, await this.reviewSubject(batch, 'resume'), liveEither(batch.environment, profile.environment));
    await this.deps.repos.transaction(async () => {
      // Read again, locked: a pause or cancel may have come in meanwhile. A paused batch runs again; an ended one stays ended.
      const current = await this.requireForChange(id);
      if (current.state === 'paused') await this.moveBatch(id, batchMove(current.state, 'running'), { lastError: null });
      await this.deps.repos.batches.runHere(id);
      await this.history.record(id, 'resumed', 'user', { note: settlingNote(batch.state === 'paused' ? 'running' : batch.state, open) });
      await this.audit('batch.resume', batch, { counts, open, ...(proof.reviewId ? { reviewId: proof.reviewId } : {}) });
    });
    this.runner.run(id);
    return this.publishNow(id);
  }

  /** Pending items are cancelled at once; items already sent are followed to their outcome. */
  async cancel(id: number): Promise<BatchView> {
    const batch = await this.require(id);
    await this.deps.repos.transaction(async () => {
      // Read in the transaction: the runner may end the batch meanwhile.
      const current = await this.requireForChange(id);
      if (!canMove(BATCH_MOVES, current.state, 'cancelled')) throw new ServiceError('conflict', `Batch ${id} is ${current.state}: only a running or paused batch can be cancelled.`);
      const cancelled = await this.deps.repos.batches.moveItems(id, CANCEL_PENDING, 'cancelled before it was sent');
      await this.moveBatch(id, batchMove(current.state, 'cancelled'), { finished: true });
      await this.history.record(id, 'cancelled', 'user', { note: cancelled > 0 ? `${cancelled} not sent yet, never to be sent` : null });
      await this.audit('batch.cancel', batch, { cancelled, counts: await this.deps.repos.batches.counts(id) });
    });
    return this.publishNow(id);
  }

  async get(id: number): Promise<BatchView> {
    return this.view(await this.require(id));
  }

  async list(input: { cursor?: number | null | undefined; limit?: number | undefined } = {}): Promise<{ items: BatchView[]; nextCursor: number | null }> {
    const page = numberedPage(await this.deps.repos.batches.page({ cursor: numberCursor(input.cursor), limit: input.limit ?? 20 }));
    const items: BatchView[] = [];
    for (const batch of page.items) items.push(await this.view(batch));
    return { items, nextCursor: page.next };
  }

  async items(input: { id: number; states?: BatchItemState[] | undefined; afterLine?: number | null | undefined; limit?: number | undefined }): Promise<{ items: BatchItemView[]; nextAfterLine: number | null }> {
    await this.require(input.id);
    const page = numberedPage(await this.deps.repos.batches.itemPage(input.id, input.states, { cursor: numberCursor(input.afterLine), limit: input.limit ?? 200 }));
    return {
      items: page.items.map(({ form: _form, batchId: _batch, duplicateOf: _duplicateOf, ...item }) => item),
      nextAfterLine: page.next,
    };
  }

  /**
   * After interrupted attempts became "unknown" (at start-up, or when a dead instance is taken
   * over), for the batches no instance of `alive` holds: drafts (an upload never finished) are
   * dropped, and batches that were running or had items in flight go on, now this instance's.
   * Each of those was interrupted: unless closing the app recorded it, the stop is recorded now as
   * unexpected (killed, crashed), with the items it left in flight; then the resume.
   */
  async recover(alive: readonly string[]): Promise<number[]> {
    for (const draft of await this.deps.repos.batches.drafts(alive)) {
      // A complete draft that awaits approval is kept for its approver.
      if (!(await this.deps.approvals?.awaiting(draft.profileId, draft.id))) await this.deps.repos.batches.deleteDraft(draft.id);
    }
    const taken = await this.deps.repos.batches.takeOver(alive);
    // The hosts of the instances that ran them, read before a dead one is forgotten (takeover.ts).
    const hosts = taken.length > 0 && this.deps.instance ? new Map((await this.deps.repos.instances.list()).map((instance) => [instance.id, instance.host])) : new Map<string, string>();
    for (const { id, runBy } of taken) {
      const batch = await this.deps.repos.batches.batch(id);
      if (!batch) continue;
      const runnerBefore = runBy === null ? null : { id: runBy, host: hosts.get(runBy) ?? null };
      const tookOver = this.deps.instance != null && runBy !== null && runBy !== this.deps.instance.id;
      await this.deps.repos.transaction(async () => {
        const counts = await this.deps.repos.batches.counts(id);
        await this.history.recordInterruption(id, 'unexpected', runnerBefore);
        await this.history.record(id, 'resumed', 'system', { note: settlingNote(batch.state, counts.sending + counts.unknown), runnerBefore });
        await this.audit('batch.resume', batch, { reason: tookOver ? 'takeover' : 'start-up', counts, ...(tookOver ? { from: runBy } : {}) }, 'system');
      });
      this.runner.run(id);
    }
    return taken.map((t) => t.id);
  }

  /** Resolves when no batch is being worked on (tests). */
  settled(): Promise<void> {
    return this.runner.settled();
  }

  /**
   * Stops the runner (waiting a little for the items in flight). A batch that was running stays
   * "running", to go on at the next start; its history records that the app was closed on it, and
   * what was left in flight. Closing again waits for the first close (a draining instance closes
   * its batches before the rest of it).
   */
  close(): Promise<void> {
    this.closed ??= this.stop();
    return this.closed;
  }

  private async stop(): Promise<void> {
    this.unsubscribe();
    await this.runner.close();
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const id of await this.deps.repos.batches.runHereOpen()) {
      try {
        await this.deps.repos.transaction(() => this.history.recordInterruption(id, 'closed'));
      } catch (error) {
        // The next start records it as unexpected instead.
        this.deps.log.error(`batch ${id}: recording that the app was closed on it failed`, error);
      }
    }
  }

  /** Inside a transaction that read the batch locked (requireForChange), so the move cannot miss it. */
  private async moveBatch(id: number, move: Move<BatchState>, extra: Parameters<Repositories['batches']['moveBatch']>[2] = {}): Promise<void> {
    if (!(await this.deps.repos.batches.moveBatch(id, move, extra))) throw new ServiceError('conflict', `Batch ${id} changed meanwhile: nothing was done.`);
  }

  /** Every declared row is there; returns how many. */
  private async requireComplete(batch: BatchRecord): Promise<number> {
    const received = await this.deps.repos.batches.itemCount(batch.id);
    if (received !== batch.declaredRows) throw new ServiceError('conflict', `Batch ${batch.id} holds ${received} of its ${batch.declaredRows} rows: upload the rest before starting it.`);
    const leftOut = await this.deps.repos.batches.leftOutCount(batch.id);
    if (leftOut !== batch.leftOutRows) throw new ServiceError('conflict', `Batch ${batch.id} holds ${leftOut} of the ${batch.leftOutRows} rows it leaves out: store why each is left out before starting it.`);
    return received;
  }

  /** A started batch with something to resume; returns how many items are open (sent, outcome unknown). */
  private async requireResumable(batch: BatchRecord): Promise<number> {
    const counts = await this.deps.repos.batches.counts(batch.id);
    const open = counts.sending + counts.unknown;
    if (batch.state === 'draft') throw new ServiceError('conflict', `Batch ${batch.id} has not been started.`);
    if (isFinal(BATCH_MOVES, batch.state) && open === 0) throw new ServiceError('conflict', `Batch ${batch.id} is ${batch.state} and has no payout whose outcome is open: nothing to resume.`);
    return open;
  }

  /**
   * What the review of a start or resume covers: the batch, the number of items it may send, their
   * totals per currency and a digest of each one (line, reference, key, form), in line order.
   */
  private async reviewSubject(batch: BatchRecord, action: 'start' | 'resume'): Promise<ReviewSubject> {
    const hash = createHash('sha256');
    const amounts: { currency: string; amount: string }[] = [];
    await this.deps.repos.batches.eachItem(batch.id, action === 'start' ? START_STATES : RESUME_STATES, (item) => {
      hash.update(`${JSON.stringify([item.line, item.merchantReference, item.idempotencyKey, item.state, item.form])}\n`);
      amounts.push({ currency: item.currency, amount: item.amount });
    });
    const totals = totalsByCurrency(amounts).map(({ currency, amount }) => [currency, amount]);
    return { kind: action === 'start' ? 'batch_start' : 'batch_resume', profileId: batch.profileId, content: JSON.stringify({ batch: batch.id, count: amounts.length, totals, items: hash.digest('hex') }) };
  }

  private async require(id: number): Promise<BatchRecord> {
    return found(id, await this.deps.repos.batches.batch(id));
  }

  /** Inside the transaction that changes the batch's state: read with its row locked (the runner's claims wait, or are waited for). */
  private async requireForChange(id: number): Promise<BatchRecord> {
    return found(id, await this.deps.repos.batches.lockedBatch(id, 'change'));
  }

  private async audit(action: string, batch: BatchRecord, details: Record<string, unknown>, actor: 'user' | 'system' = 'user'): Promise<void> {
    await this.deps.repos.audit.append({ actor, action, profileId: batch.profileId, subject: `batch:${batch.id}`, details: { batchId: batch.id, fileName: batch.fileName, environment: batch.environment, ...details } });
  }

  /** Exact sums per currency; fixed once the batch has its rows. */
  private async totalsOf(id: number): Promise<BatchView['totals']> {
    const cached = this.totals.get(id);
    if (cached) return cached;
    const totals = totalsByCurrency(await this.deps.repos.batches.amounts(id));
    if ((await this.deps.repos.batches.batch(id))?.state !== 'draft') this.totals.set(id, totals);
    return totals;
  }

  private async view(batch: BatchRecord): Promise<BatchView> {
    const { id } = batch;
    const { batches, batchEvents } = this.deps.repos;
    let profileName = '(deleted profile)';
    try {
      profileName = (await this.deps.profiles.require(batch.profileId)).name;
    } catch {
      // The batch outlives its profile in the ledger.
    }
    const counts = await batches.counts(id);
    return {
      id,
      profileId: batch.profileId,
      profileName,
      environment: batch.environment,
      fileName: batch.fileName,
      state: batch.state,
      declaredRows: batch.declaredRows,
      leftOut: batch.leftOutRows,
      // Every item is in one state: the total is their sum (one query fewer per view, and pushed several times a second).
      total: Object.values(counts).reduce((sum, n) => sum + n, 0),
      counts,
      outcomes: await batches.outcomes(id),
      totals: await this.totalsOf(id),
      lastError: batch.lastError,
      createdAt: batch.createdAt,
      updatedAt: batch.updatedAt,
      startedAt: batch.startedAt,
      finishedAt: batch.finishedAt,
      history: await batchEvents.latest(id, BATCH_HISTORY_SHOWN),
      historyTotal: await batchEvents.count(id),
    };
  }

  /**
   * Reads the batch and pushes it. One batch's pushes are read one after the other: read side by
   * side (PostgreSQL answers on several connections), a view read earlier could be pushed after a
   * later one, and the progress would go backwards.
   */
  private publishNow(id: number): Promise<BatchView> {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
    this.lastPublished.set(id, Date.now());
    const previous = this.publishing.get(id) ?? Promise.resolve();
    const next = previous.then(async () => {
      const view = await this.view(await this.require(id));
      try {
        this.deps.events.publish('batches:batch-changed', view);
      } catch (error) {
        this.deps.log.error(`publishing batch ${id} failed`, error);
      }
      return view;
    });
    const settled = next.catch(() => undefined);
    this.publishing.set(id, settled);
    void settled.then(() => {
      if (this.publishing.get(id) === settled) this.publishing.delete(id);
    });
    return next;
  }

  /** For timers and callbacks: a batch deleted meanwhile is not published, and a failure is logged. */
  private async publishSafely(id: number): Promise<void> {
    try {
      if (await this.deps.repos.batches.batch(id)) await this.publishNow(id);
    } catch (error) {
      this.deps.log.error(`publishing batch ${id} failed`, error);
    }
  }

  /**
   * The batch a payout row belongs to, or null. Remembered: a row is linked to its item in the
   * transaction that records it (or never), so what was found holds for as long as the row exists.
   */
  private async batchOfPayoutRow(rowId: number): Promise<number | null> {
    const known = this.batchOfRow.get(rowId);
    if (known !== undefined) return known;
    const batchId = (await this.deps.repos.batches.batchOfPayoutRow(rowId)) ?? null;
    this.rememberBatchOf(rowId, batchId);
    return batchId;
  }

  private rememberBatchOf(rowId: number, batchId: number | null): void {
    this.batchOfRow.set(rowId, batchId);
    if (this.batchOfRow.size > REMEMBERED_PAYOUT_ROWS) this.batchOfRow.delete(this.batchOfRow.keys().next().value as number);
  }

  /** At most one push per interval, and always a last one after the latest change. */
  private schedulePublish(id: number): void {
    if (this.timers.has(id)) return;
    const interval = this.deps.progressIntervalMs ?? 200;
    const wait = (this.lastPublished.get(id) ?? 0) + interval - Date.now();
    if (wait <= 0) {
      // Counted from now, not from when the batch has been read: the changes meanwhile wait for the timer.
      this.lastPublished.set(id, Date.now());
      void this.publishSafely(id);
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(id);
      void this.publishSafely(id);
    }, wait);
    timer.unref();
    this.timers.set(id, timer);
  }
}

/** What a row is compared on with earlier payouts (its amount as typed; one that is not a number matches none). */
function candidateOf(form: BatchRowForm) {
  return { method: form.method ?? '', amount: form.amount, currency: form.currency, paymentDetails: form.paymentDetails };
}

function found(id: number, batch: BatchRecord | undefined): BatchRecord {
  if (!batch) throw new ServiceError('not_found', `No batch ${id}.`, { id: 'is not a batch of this ledger' });
  return batch;
}

/** A resume that leaves the batch other than running settles its open payouts only: the history says so. */
function settlingNote(stateAfter: BatchRecord['state'], open: number): string | null {
  if (stateAfter === 'running' || open === 0) return null;
  return `settling ${open} ${open === 1 ? 'payout' : 'payouts'} whose outcome was open, under their own keys; the batch stays ${stateAfter}`;
}
