// Sends a batch's items with bounded concurrency through the manual payout path (validation,
// limits, audit, exactly-once attempt), and settles items whose outcome is open.
//
// Exactly once: an item's attempt key is written in the transaction that prepares the attempt
// (PayoutHooks.afterPrepare), and that transaction first checks the item is still pending and
// its batch still running. So after any crash an item either has no attempt (it is still
// pending, and sending it is safe) or has one, and is then only ever settled under that key
// through AttemptService.settle (attempts:resume without a review of its own: the batch's start
// was reviewed) — the gateway answers a repeated key with its first answer.
//
// Few commits: with synchronous=FULL every commit is an fsync, which the emulator, the listener
// and every IPC call wait behind (SQLite: one connection, its transactions queued). `concurrency` workers each hold at most
// one item. The answers that arrive together (in one turn of the event loop) are recorded in one
// transaction, each with its payout row, its item's state and its worker's next item (intent
// recorded, attempt claimed), which goes out as soon as that commits. So a sent item costs at most
// one commit, usually a fraction of one; the first items of a run are prepared in one too.
//
// A claim is sent the moment its transaction commits (launch), before anything that could fail or
// wait (the keychain read of the next session); one whose transaction rolls back is forgotten, so
// its bytes do not stay in memory and it can never be sent. No transaction is open while a request
// is out: the send starts after the commit resolves, and its answer is recorded in another.
//
// Workers run side by side between awaits, so what one is taking is marked in memory (Run.inFlight)
// the moment it is read, before its transaction commits: another worker reading the same rows
// meanwhile passes it by.
//
// A batch of a ledger restored from a backup (services/ledger-restore.ts) may have had items sent
// after the backup by the server that made it, which the ledger does not know of. Each of its
// pending items is claimed as any other, but withheld instead of sent (its attempt unknown, no try
// counted) and so settled as an open item: looked up at the gateway by merchantReference, sent
// under its own key only where the gateway has none.
import type { BatchItemState, PayoutCreateForm, SubmitResult } from '../../../shared/contract';
import type { BatchItemRecord, BatchRecord, BatchesRepository } from '../../ledger/repositories/batches';
import type { Transaction } from '../../ledger/repositories/index';
import type { Logger } from '../../logger';
import { ServiceError } from '../errors';
import type { AttemptService } from '../payments/attempt-service';
import type { PayoutService, PayoutSession } from '../payments/payout-service';
import type { AnsweredPayout, PreparedPayout } from '../payments/submitter';
import type { BatchHistory } from './batch-history';
import { OPEN_ITEMS, batchMove, itemMove } from './batch-states';
import { errorMessage } from '../../../shared/error-message';

export interface BatchRunnerDeps {
  transaction: Transaction;
  batches: BatchesRepository;
  /** Where the runner's own changes of a batch (its end, a pause it had to make) are recorded. */
  history: Pick<BatchHistory, 'record'>;
  payouts: Pick<PayoutService, 'session' | 'prepare' | 'send' | 'recorded'>;
  attempts: Pick<AttemptService, 'settle'>;
  log: Logger;
  /** Something about the batch changed (throttled by the caller). */
  changed: (batchId: number) => void;
  /** The batch ran out of work; force: publish now. */
  ended: (batchId: number) => void;
  /** An item's payout row, its intent committed, is about to be sent (and pushed). */
  sending: (batchId: number, payoutRowId: number) => void;
  /** Items in flight at once per batch. Default DEFAULT_BATCH_CONCURRENCY. */
  concurrency?: number;
  /** Why the batch's pending items are looked up before they are sent (a restored ledger's), or null. None: never. */
  lookUpFirst?: (batchId: number) => Promise<string | null>;
}

/**
 * Items of a batch in flight at once, by default. The spec limits status reads, not creates, so
 * the bound is ours: 8 overlaps a remote gateway's latency, and lets the answers that arrive
 * together share a commit (about 4 per commit against the embedded emulator, 2 with 4 in flight),
 * while one batch stays a small load for the gateway and for the listener its notifications reach.
 */
export const DEFAULT_BATCH_CONCURRENCY = 8;

/** A pending item whose payout intent is committed (the item "sending" with its key): send it at once. */
interface Claimed {
  item: BatchItemRecord;
  payout: PreparedPayout;
}

/** A claimed item whose request is on its way: launched the moment its intent committed. */
interface Launched extends Claimed {
  answer: Promise<AnsweredPayout>;
}

/** One run over a batch. */
interface Run {
  batchId: number;
  profileId: string;
  /** Items a worker holds (being claimed, claimed, or being settled): never picked up twice. */
  inFlight: Set<number>;
  /** Open items are settled once per run: an attempt still unknown waits for the next resume. */
  settledThisRun: Set<number>;
  /** Bound of each worker's loop (every turn settles or sends an item, so it is never reached). */
  turns: number;
  /** Another instance runs the batch now (said once in the log). */
  handedOver: boolean;
  /** Why its pending items are withheld and looked up before they are sent, or null (they are sent). */
  lookUpFirst: string | null;
  /** Items withheld so far: each is open now, to be settled by a worker. */
  withheld: number;
}

/** An answer waiting for the next group commit, and its worker waiting for its next item. */
interface PendingAnswer {
  run: Run;
  claimed: Claimed;
  answered: AnsweredPayout;
  /** To claim the worker's next item with; none (closing, no credentials): the worker stops. */
  session: PayoutSession | undefined;
  resolve: (next: Launched | undefined) => void;
}

const ITEM_STATE = { succeeded: 'sent', rejected: 'refused', unknown: 'unknown' } as const satisfies Record<string, BatchItemState>;

/** The moves the runner makes (batch-states.ts), checked once against the tables. */
const PREPARE = itemMove('pending', 'sending');
const REFUSE_ROW = itemMove('pending', 'refused');
const NO_ANSWER = itemMove('sending', 'unknown');
const ANSWERED = { sent: itemMove('sending', 'sent'), refused: itemMove('sending', 'refused'), unknown: NO_ANSWER } as const;
const SETTLED = { sent: itemMove(OPEN_ITEMS, 'sent'), refused: itemMove(OPEN_ITEMS, 'refused'), unknown: itemMove(OPEN_ITEMS, 'unknown') } as const;
const FINISH = batchMove('running', 'done');
const PAUSE = batchMove('running', 'paused');


/** Claims of a transaction that rolled back were never made: nothing of them stays in memory or held. */
const forget = (run: Run, claims: Iterable<Claimed>) => {
  for (const { item, payout } of claims) {
    run.inFlight.delete(item.id);
    payout.runner.forget(payout.key);
  }
};

export class BatchRunner {
  private readonly active = new Map<number, Promise<void>>();
  private readonly again = new Set<number>();
  private closing = false;
  /** Answers of every batch being run, recorded together at the end of the event loop's turn. */
  private answers: PendingAnswer[] = [];
  private flush: NodeJS.Immediate | undefined;

  constructor(private readonly deps: BatchRunnerDeps) {}

  isActive(batchId: number): boolean {
    return this.active.has(batchId);
  }

  /** Starts working on a batch; if it is being worked on already, runs again once that ends. */
  run(batchId: number): void {
    if (this.closing) return;
    if (this.active.has(batchId)) {
      this.again.add(batchId);
      return;
    }
    const drive = this.drive(batchId)
      .catch((error) => this.deps.log.error(`batch ${batchId}: the runner failed`, error))
      .finally(() => {
        this.active.delete(batchId);
        if (this.again.delete(batchId)) this.run(batchId);
      });
    this.active.set(batchId, drive);
  }

  /** Resolves when every batch being worked on has stopped. */
  async settled(): Promise<void> {
    while (this.active.size > 0) await Promise.all([...this.active.values()]);
  }

  /**
   * Stops taking new items and waits (at most `waitMs`) for the ones in flight. A running batch
   * stays "running" in the ledger, so the next start resumes it; an item cut off mid-send keeps
   * its key and is settled under it then.
   */
  async close(waitMs = 5_000): Promise<void> {
    this.closing = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.settled(), new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
  }

  private async drive(batchId: number): Promise<void> {
    const { batches } = this.deps;
    const batch = await batches.batch(batchId);
    // Another instance runs it (it resumed it, or took it over): its items and its end are that one's.
    if (!batch || !batches.runsHere(batch)) return;
    const lookUpFirst = (await this.deps.lookUpFirst?.(batchId)) ?? null;
    const run: Run = { batchId, profileId: batch.profileId, inFlight: new Set(), settledThisRun: new Set(), turns: 2 * (await batches.itemCount(batchId)) + 10, handedOver: false, lookUpFirst, withheld: 0 };
    const concurrency = Math.max(1, this.deps.concurrency ?? DEFAULT_BATCH_CONCURRENCY);
    // The first item of every worker, prepared in one commit; open items (a crash left them) come first.
    const session = batch.state === 'running' && !(await this.hasOpen(run)) ? await this.session(run) : undefined;
    const first = session ? (await this.claimPending(run, session, concurrency)).map((claimed) => this.launch(claimed)) : [];
    await Promise.all(Array.from({ length: concurrency }, (_, i) => this.worker(run, first[i])));
    if (this.closing || run.handedOver) return;
    await this.deps.transaction(async () => {
      const locked = await batches.lockedBatch(batchId, 'change');
      if (locked?.state !== 'running' || !batches.runsHere(locked) || (await batches.counts(batchId)).pending !== 0) return;
      await batches.moveBatch(batchId, FINISH, { finished: true });
      await this.deps.history.record(batchId, 'finished', 'system');
    });
    this.deps.ended(batchId);
  }

  /** One item at a time: a claimed one to send (whose answer may claim the next), else an open one to settle, else a pending one. */
  private async worker(run: Run, first: Launched | undefined): Promise<void> {
    let next = first;
    for (let turn = 0; turn <= run.turns; turn++) {
      if (!next) {
        if (this.closing || run.handedOver) return;
        const open = await this.claimOpen(run);
        if (open) {
          await this.settleOpen(run, open);
          continue;
        }
        if (!this.mayClaim(run, await this.deps.batches.batch(run.batchId))) return;
        const session = await this.session(run);
        const withheld = run.withheld;
        const claimed = session && (await this.claimPending(run, session, 1))[0];
        // One withheld is open now: settled at the next turn.
        if (!claimed && run.withheld > withheld) continue;
        if (!claimed) return;
        next = this.launch(claimed);
      }
      next = await this.send(run, next);
    }
  }

  /**
   * Items are claimed while the batch runs and runs here. Another instance that resumed it or took
   * it over (taking this one for dead) runs it from then on: this runner sends what it holds and
   * stops, so one batch is not sent by two runners side by side.
   */
  private mayClaim(run: Run, batch: BatchRecord | undefined): batch is BatchRecord {
    if (batch?.state !== 'running') return false;
    if (this.deps.batches.runsHere(batch)) return true;
    if (!run.handedOver) this.deps.log.info(`batch ${run.batchId}: run by instance ${batch.runBy ?? '(none)'} now; this runner stops claiming its items`);
    run.handedOver = true;
    return false;
  }

  /** An item whose attempt may have left (sending, unknown) and that no worker holds, once per run. */
  private async claimOpen(run: Run): Promise<BatchItemRecord | undefined> {
    for (;;) {
      const open = await this.openItem(run);
      if (!open) return undefined;
      // Another worker took it while this one was reading: read again (it is excluded now).
      if (run.inFlight.has(open.id) || run.settledThisRun.has(open.id)) continue;
      run.settledThisRun.add(open.id);
      run.inFlight.add(open.id);
      return open;
    }
  }

  private async openItem(run: Run): Promise<BatchItemRecord | undefined> {
    return (await this.deps.batches.nextOpen(run.batchId, new Set([...run.inFlight, ...run.settledThisRun]), 1))[0];
  }

  /**
   * Open items are settled before more pending ones are sent (as at start-up, after a crash), so
   * the items "sending" are never more than the ones in flight plus those waiting for a worker.
   */
  private async hasOpen(run: Run): Promise<boolean> {
    return (await this.openItem(run)) !== undefined;
  }

  /**
   * In one transaction: up to n pending items of a running batch get their payout's intent
   * recorded (attempt claimed for sending, payout row, audit entry, the item "sending" with its
   * key). Rows the payout path refuses are settled "refused" on the way; a problem that is not
   * about the row (credentials, profile, environment) pauses the batch, saying why. The claimed
   * items are held (Run.inFlight) from the moment they are read, and resolve once committed.
   */
  private async claimPending(run: Run, session: PayoutSession, n: number): Promise<Claimed[]> {
    if (this.closing) return [];
    const claimed: Claimed[] = [];
    try {
      await this.deps.transaction(() => this.claimInto(claimed, run, session, n));
      return claimed;
    } catch (error) {
      forget(run, claimed);
      throw error;
    }
  }

  /**
   * claimPending's work, in the caller's transaction (recordTogether's, whose failure rolls back
   * the whole group: no savepoint of its own). Adds what it claims to `claimed` as it goes, so a
   * rollback after it can forget them; forgets them itself when it fails.
   */
  private async claimInto(claimed: Claimed[], run: Run, session: PayoutSession, n: number): Promise<void> {
    const { batches, payouts } = this.deps;
    try {
      const batch = await batches.lockedBatch(run.batchId, 'claim');
      if (!this.mayClaim(run, batch)) return;
      const withheldBefore = run.withheld;
      for (let tries = 0; claimed.length + run.withheld - withheldBefore < n && tries < run.turns; tries++) {
        // Items other workers are claiming are passed by: their transactions have not committed yet.
        const item = await batches.nextToClaim(batch.id, run.inFlight);
        if (!item) break;
        run.inFlight.add(item.id);
        let payout: PreparedPayout;
        try {
          const form = JSON.parse(item.form) as Omit<PayoutCreateForm, 'profileId'>;
          // A refused row rolls back its own savepoint (PayoutService.prepare) and the others go on.
          payout = await payouts.prepare({ ...form, profileId: batch.profileId }, session, {
            auditDetails: { batchId: batch.id, line: item.line },
            hooks: { afterPrepare: (key, payoutRowId) => batches.markPrepared(item.id, PREPARE, key, payoutRowId) },
          });
        } catch (error) {
          run.inFlight.delete(item.id);
          if (error instanceof ServiceError && (error.code === 'conflict' || error.code === 'invalid_input')) {
            await batches.moveItem(item.id, REFUSE_ROW, error.message);
            continue;
          }
          await this.pauseByItself(batch.id, error);
          if (!(error instanceof ServiceError)) this.deps.log.error(`batch ${batch.id}: line ${item.line} failed`, error);
          break;
        }
        // A failure here fails the whole transaction: nothing of this claim is left half done.
        if (run.lookUpFirst !== null) await this.withhold(run, item, payout, run.lookUpFirst);
        else claimed.push({ item, payout });
      }
    } catch (error) {
      forget(run, claimed.splice(0));
      throw error;
    }
  }

  /**
   * In the claim's transaction: the item's attempt and the item itself unknown, nothing sent or
   * kept in memory; a worker settles it as an open item (looked up first). Released from the
   * workers' hold, as it is no longer being claimed.
   */
  private async withhold(run: Run, item: BatchItemRecord, payout: PreparedPayout, why: string): Promise<void> {
    try {
      await payout.runner.withhold(payout.key, why);
      await this.deps.batches.moveItem(item.id, NO_ANSWER, why);
      run.withheld++;
    } finally {
      run.inFlight.delete(item.id);
    }
  }

  /**
   * Sends a claimed item now: called the moment its intent is committed, before anything that
   * could fail or wait. A failure is the worker's to handle (send), not an unhandled rejection.
   */
  private launch(claimed: Claimed): Launched {
    this.deps.sending(claimed.item.batchId, claimed.payout.rowId);
    const answer = (async () => this.deps.payouts.send(claimed.payout))();
    answer.catch(() => undefined);
    return { ...claimed, answer };
  }

  /** Waits for a launched item's answer; resolves, once that is committed, with the worker's next item (launched). */
  private async send(run: Run, claimed: Launched): Promise<Launched | undefined> {
    try {
      // Read while the request is out (session() never throws), so the next item can be claimed in the answer's own transaction.
      const session = this.closing ? undefined : await this.session(run);
      const answered = await claimed.answer;
      return await new Promise<Launched | undefined>((resolve) => {
        this.answers.push({ run, claimed, answered, session, resolve });
        this.flush ??= setImmediate(() => void this.recordAnswers());
      });
    } catch (error) {
      // Not sent, or no answer recorded (the attempt is then unknown): only the item's own key settles it.
      await this.deps.batches.moveItem(claimed.item.id, NO_ANSWER, errorMessage(error));
      if (!(error instanceof ServiceError)) this.deps.log.error(`batch ${run.batchId}: line ${claimed.item.line} failed`, error);
      return undefined;
    } finally {
      run.inFlight.delete(claimed.item.id);
      this.deps.changed(run.batchId);
    }
  }

  /**
   * The answers that arrived in this turn of the event loop, in one transaction: each one's
   * attempt and payout row, its item's state, and its worker's next item. If that fails, each
   * answer on its own, so one that cannot be recorded holds back none of the others; that one's
   * attempt and item become unknown, to be settled under their key. Never rejects, and answers
   * every worker waiting on it (with no next item when something failed unexpectedly).
   */
  private async recordAnswers(): Promise<void> {
    this.flush = undefined;
    const answers = this.answers;
    this.answers = [];
    try {
      await this.recordTogether(answers);
    } catch (error) {
      this.deps.log.error('batch answers: recording failed', error);
    } finally {
      for (const a of answers) a.resolve(undefined); // a no-op for those answered already
    }
  }

  private async recordTogether(answers: PendingAnswer[]): Promise<void> {
    const { transaction, batches, payouts, log } = this.deps;
    const nexts = new Map<PendingAnswer, Claimed | undefined>();
    // In the caller's transaction; the next item is held (claimPending) from the moment it is read,
    // so the answers after it in this transaction do not take it for an open item.
    const recordOne = async (a: PendingAnswer) => {
      await a.answered.record();
      const { state } = a.answered.outcome;
      await batches.moveItem(a.claimed.item.id, ANSWERED[ITEM_STATE[state]], state === 'succeeded' ? null : a.answered.message);
      const claimed: Claimed[] = [];
      if (a.session && !this.closing && !(await this.hasOpen(a.run))) await this.claimInto(claimed, a.run, a.session, 1);
      nexts.set(a, claimed[0]);
    };
    /** Claims of a transaction that rolled back were never made: not held, not kept in memory. */
    const release = (rolledBack: Iterable<[PendingAnswer, Claimed | undefined]>) => {
      for (const [a, next] of rolledBack) if (next) forget(a.run, [next]);
    };
    try {
      await transaction(async () => {
        for (const a of answers) await recordOne(a);
      });
    } catch (groupError) {
      log.warn(`batch answers: recording ${answers.length} together failed (${errorMessage(groupError)}); recording each on its own`);
      release(nexts);
      nexts.clear();
      for (const a of answers) {
        try {
          await transaction(() => recordOne(a));
        } catch (error) {
          release([[a, nexts.get(a)]]);
          nexts.delete(a);
          log.error(`batch ${a.run.batchId}: line ${a.claimed.item.line}: the answer could not be recorded`, error);
          const why = `the answer could not be recorded: ${errorMessage(error)}`;
          try {
            await a.answered.abandon(why);
            await batches.moveItem(a.claimed.item.id, NO_ANSWER, why);
          } catch {
            // Left "sending": settled under its key by the next run (start-up or resume).
          }
        }
      }
    }
    // Committed: the next items go out now, before anything else is done.
    const launched = new Map<PendingAnswer, Launched>();
    for (const [a, next] of nexts) if (next) launched.set(a, this.launch(next));
    for (const a of answers) {
      try {
        if (nexts.has(a)) await payouts.recorded(a.answered);
      } catch (error) {
        log.error(`batch ${a.run.batchId}: after recording line ${a.claimed.item.line}`, error);
      }
      a.resolve(launched.get(a));
    }
  }

  /**
   * Settles an open item under its key. Busy: another send of it is in flight (on PostgreSQL,
   * another process running this batch holds its claim), and that sender records it, so the item
   * is left as it is. Only an item still open takes the outcome: another process may have
   * recorded it meanwhile, and items only move forward.
   */
  private async settleOpen(run: Run, item: BatchItemRecord): Promise<void> {
    try {
      const result = await this.deps.attempts.settle({ key: item.idempotencyKey as string });
      if (result.outcome !== 'busy') await this.record(item.id, result);
    } catch (error) {
      await this.deps.batches.moveItem(item.id, SETTLED.unknown, `could not settle it yet: ${errorMessage(error)}`);
    } finally {
      run.inFlight.delete(item.id);
      this.deps.changed(run.batchId);
    }
  }

  /**
   * The batch profile's gateway session; when there is none (credentials, profile), a running
   * batch pauses saying why. Never throws: a send in flight waits on it (send).
   */
  private async session(run: Run): Promise<PayoutSession | undefined> {
    try {
      return await this.deps.payouts.session(run.profileId);
    } catch (error) {
      const { transaction, log } = this.deps;
      if (!(error instanceof ServiceError)) log.error(`batch ${run.batchId}: no gateway session`, error);
      try {
        await transaction(async () => {
          if ((await this.deps.batches.batch(run.batchId))?.state === 'running') await this.pauseByItself(run.batchId, error);
        });
      } catch (pauseError) {
        log.error(`batch ${run.batchId}: could not pause it`, pauseError);
      }
      return undefined;
    }
  }

  /** Inside the caller's transaction, of a running batch: a problem that is not about one row (credentials, profile) pauses it, saying why. */
  private async pauseByItself(batchId: number, error: unknown): Promise<void> {
    const why = `Paused: ${errorMessage(error)}`;
    if (await this.deps.batches.moveBatch(batchId, PAUSE, { lastError: why })) await this.deps.history.record(batchId, 'paused', 'system', { note: why });
  }

  /** An open item takes its attempt's settled outcome; one another process settled meanwhile is left as it is. */
  private async record(itemId: number, result: SubmitResult): Promise<void> {
    if (result.outcome === 'succeeded') await this.deps.batches.moveItem(itemId, SETTLED.sent, null);
    else if (result.outcome === 'rejected') await this.deps.batches.moveItem(itemId, SETTLED.refused, result.message);
    else await this.deps.batches.moveItem(itemId, SETTLED.unknown, result.message);
  }
}
