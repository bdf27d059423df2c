// The apply step: turns stored notifications into ledger facts. A notification is a claim (the
// spec documents no signature), so it does not move the pay-in / payout's status: it is recorded
// as the notified status, "unverified" until a status read agrees (services/verification). Duplicates are recognised by their dedupe
// key, a notification for a transaction we do not know yet is kept as an orphan and applied
// when the transaction appears, and nothing here ever deletes or rewrites what was received.
import { parseJson, isJsonObject } from '../../shared/json';
import { EVENT_SPECS, eventSpec, isNotificationEvent, subjectOf, type NotificationEvent } from '../../shared/spec/events';
import { TokenizationNotificationSchema } from '../../shared/spec/schemas';
import type { Repositories } from '../ledger/repositories/index';
import type { NotificationOutcome, NotificationSummaryRecord, OutcomeLinks, StoredNotification } from '../ledger/repositories/notifications';
import type { PayinRecord } from '../ledger/repositories/payins';
import type { PayoutRecord } from '../ledger/repositories/payouts';
import type { TransactionRecord } from '../ledger/repositories/transactions';
import type { Logger } from '../logger';
import { TRANSACTION_KINDS, transactionOf, type TransactionKind } from '../transaction-kinds';
import { applyStatus } from './payments/apply';
import { readPush, type TransactionChange, type TransactionPush } from './payments/pushes';
import type { StatusOutcome } from './status-change';
import { moneyContradictions } from './verification/status-reader';

export interface AppliedNotification {
  id: number;
  outcome: NotificationOutcome;
  subject: 'payin' | 'payout' | null;
  /** The pay-in or payout row it concerns, when known. */
  rowId: number | null;
  tokenRowId: number | null;
  /** The notification claims something no gateway answer has confirmed yet, or contradicts the ledger: read the status. */
  needsVerification: boolean;
  detail: string | null;
  /** The notification as applied (its push, read in the write that records its outcome). */
  summary: NotificationSummaryRecord;
  /**
   * The views of the pay-in / payout and token it changed, read in the same write: published as
   * they are, they show its claim even when the status read it asks for is done before they leave.
   */
  pushes: TransactionPush[];
}

export interface NotificationApplierOptions {
  repos: Repositories;
  log?: Logger;
  /** The waits before each new try of a notification that failed to apply (DEFAULT_RETRY_DELAYS_MS). */
  retryDelaysMs?: readonly number[];
}

/**
 * A notification that failed to apply (the ledger busy or unreachable a moment) is tried again
 * after each of these waits, without a restart; after the last it is left pending, with an error
 * logged: applied at the next start (recoverPending) or replayed from the webhook inspector.
 */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 30_000, 120_000, 600_000];

/** Told every result: the verifier (to schedule reads), the pushes and the retention rule. Must not throw. */
export type AppliedListener = (result: AppliedNotification) => void;

interface Verdict extends OutcomeLinks {
  outcome: Exclude<NotificationOutcome, 'pending'>;
  subject: 'payin' | 'payout' | null;
  needsVerification?: boolean;
}

const silent: Logger = { info: () => {}, warn: () => {}, error: () => {} };

export class NotificationApplier {
  private readonly repos: Repositories;
  private readonly log: Logger;
  private readonly listeners = new Set<AppliedListener>();
  private queue: number[] = [];
  private scheduled = false;
  /** The ids of each turn enqueued, applied one turn at a time (enqueue). */
  private readonly turns: number[][] = [];
  private draining: Promise<void> | undefined;
  private readonly retryDelaysMs: readonly number[];
  /** Tries failed so far of each notification that failed to apply, until it applies or is given up. */
  private readonly failedTries = new Map<number, number>();
  /** The one try waiting for each such notification. */
  private readonly retryTimers = new Map<number, NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly options: NotificationApplierOptions) {
    this.repos = options.repos;
    this.log = options.log ?? silent;
    this.retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  }

  /** Every result from now on; returns the unsubscribe. */
  subscribe(listener: AppliedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The listener's onStored: the ids stored in one turn of the event loop are applied in one
   * transaction, and these transactions run one after the other. Side by side they would only wait
   * for each other's applier lock, each holding a connection of the pool (PostgreSQL) that the
   * rest of the instance needs meanwhile; kept to one turn's ids, each holds its rows briefly.
   */
  enqueue(id: number): void {
    this.queue.push(id);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.turns.push(this.queue.splice(0));
      this.draining ??= this.drain();
    });
  }

  /**
   * Resolves once every id enqueued so far is applied. A closing core waits for it after its
   * listener closed (which lets the requests in flight be stored and answered) and before its
   * ledger closes: what was acknowledged while it stopped is applied now, not at the next start.
   */
  async idle(): Promise<void> {
    while (this.scheduled || this.draining) {
      if (this.draining) await this.draining;
      else await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** For a closing core: no new try is scheduled, those waiting are dropped (left pending for the next start), and what is queued is applied. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.retryTimers.values()) clearTimeout(timer);
    this.retryTimers.clear();
    this.failedTries.clear();
    await this.idle();
  }

  /**
   * A notification that failed to apply: enqueued again after its next wait, or given up after the
   * last. One already waiting for its next try (a start-up's later round failed it again) keeps it.
   */
  private retryLater(id: number): void {
    if (this.retryTimers.has(id)) return;
    const tries = (this.failedTries.get(id) ?? 0) + 1;
    const wait = this.retryDelaysMs[tries - 1];
    if (wait === undefined || this.closed) {
      this.failedTries.delete(id);
      if (wait === undefined) this.log.error(`notification ${id} is left pending after ${tries} tries to apply it: it is applied at the next start, or replayed from the webhook inspector`);
      return;
    }
    this.failedTries.set(id, tries);
    const timer = setTimeout(() => {
      this.retryTimers.delete(id);
      if (!this.closed) this.enqueue(id);
    }, wait);
    timer.unref();
    this.retryTimers.set(id, timer);
  }

  private async drain(): Promise<void> {
    for (let ids = this.turns.shift(); ids; ids = this.turns.shift()) {
      // applyMany logs what fails to apply; this catches only what escapes it (a throwing logger).
      await this.applyMany(ids).catch((error: unknown) => this.log.error('applying queued notifications failed', error));
    }
    this.draining = undefined;
  }

  /** Applies pending notifications in one transaction; falls back to one by one if that fails. */
  async applyMany(ids: readonly number[]): Promise<AppliedNotification[]> {
    if (ids.length === 0) return [];
    let results: AppliedNotification[];
    const failed = new Set<number>();
    try {
      results = await this.repos.transaction(() => this.applyEach(ids));
    } catch (error) {
      this.log.error('applying a batch of notifications failed; retrying them one by one', error);
      results = [];
      for (const id of ids) {
        try {
          results.push(...(await this.repos.transaction(() => this.applyOne(id))));
        } catch (inner) {
          // Left pending, and visible as such: tried again after a wait (retryLater).
          this.log.error(`notification ${id} could not be applied`, inner);
          failed.add(id);
        }
      }
    }
    for (const id of ids) if (!failed.has(id)) this.failedTries.delete(id);
    for (const id of failed) this.retryLater(id);
    for (const result of results) this.publish(result);
    return results;
  }

  async apply(id: number): Promise<AppliedNotification | undefined> {
    return (await this.applyMany([id]))[0];
  }

  /** At start-up: applies what was stored but not applied before the last exit. Returns how many. */
  async recoverPending(maxRounds = 100): Promise<number> {
    let applied = 0;
    for (let round = 0; round < maxRounds; round++) {
      const ids = await this.repos.notifications.pendingIds(1000);
      if (ids.length === 0) break;
      const results = await this.applyMany(ids);
      applied += results.length;
      if (results.length === 0) break; // every one failed: do not spin
    }
    return applied;
  }

  /**
   * Applies the orphans waiting for a transaction that just became known (call after recording
   * a create answer). Returns what became of them.
   */
  async matchOrphans(subject: TransactionKind, rowId: number): Promise<AppliedNotification[]> {
    const row = await TRANSACTION_KINDS[subject].store(this.repos).byId(rowId);
    return row ? this.matchOrphansOf(row) : [];
  }

  /** matchOrphans for a row the caller has just read (as it stands since its create answer was recorded). */
  async matchOrphansOf(row: PayinRecord | PayoutRecord): Promise<AppliedNotification[]> {
    const { kind, reference, gatewayId } = transactionOf(row);
    const refs = { transactionRef: gatewayId, requestRef: reference };
    const orphans = (await this.repos.notifications.orphansFor(row.profileId, refs)).filter((n) => subjectOf(n.event) === kind);
    if (orphans.length === 0) return [];
    const results = await this.repos.transaction(() => this.applyEach(orphans.map((n) => n.id), true));
    for (const result of results) this.publish(result);
    return results;
  }

  /**
   * Applies again a notification kept as an orphan or left pending (the webhook inspector's
   * replay of such a one). Returns what became of it, or undefined for another outcome.
   */
  async retry(id: number): Promise<AppliedNotification | undefined> {
    const results = await this.repos.transaction(() => this.applyOne(id, true));
    for (const result of results) this.publish(result);
    return results[0];
  }

  /**
   * Orphans whose pay-in or payout has been recorded since (by any path) are applied now; the
   * others are left untouched. Run at start-up and before a reconciliation sweep.
   */
  async retryOrphans(limit = 10_000): Promise<AppliedNotification[]> {
    const known: number[] = [];
    for (const n of await this.repos.notifications.withOutcome('orphan', limit)) {
      if ((await this.findTransaction(n)) !== undefined) known.push(n.id);
    }
    if (known.length === 0) return [];
    const results = await this.repos.transaction(() => this.applyEach(known, true));
    for (const result of results) this.publish(result);
    return results;
  }

  private publish(result: AppliedNotification): void {
    for (const listener of this.listeners) {
      try {
        listener(result);
      } catch (error) {
        this.log.error('a listener of applied notifications failed', error);
      }
    }
  }

  /** One after the other, in the caller's transaction (each sees what the ones before it wrote). */
  private async applyEach(ids: readonly number[], retryOrphan = false): Promise<AppliedNotification[]> {
    const results: AppliedNotification[] = [];
    for (const id of ids) results.push(...(await this.applyOne(id, retryOrphan)));
    return results;
  }

  private async applyOne(id: number, retryOrphan = false): Promise<AppliedNotification[]> {
    const { notifications } = this.repos;
    await notifications.lockForApplying();
    const n = await notifications.byId(id);
    if (!n || !(n.outcome === 'pending' || (retryOrphan && n.outcome === 'orphan'))) return [];
    const verdict = await this.decide(n);
    const summary = await notifications.markOutcome(id, verdict.outcome, verdict);
    // Copies are marked duplicates of a processed notification only (firstWithSameKey): while this one was pending none was
    // marked one of it, so only an orphan applied now has any to link.
    if (n.outcome === 'orphan' && verdict.outcome !== 'orphan' && verdict.outcome !== 'duplicate') await this.linkDuplicates(n, verdict);
    const rowId = verdict.payinRowId ?? verdict.payoutRowId ?? null;
    const tokenRowId = verdict.tokenRowId ?? null;
    const changes: TransactionChange[] = [];
    if (verdict.subject !== null && rowId !== null) changes.push({ subject: verdict.subject, rowId });
    if (tokenRowId !== null) changes.push({ subject: 'token', rowId: tokenRowId });
    const pushes: TransactionPush[] = [];
    for (const change of changes) {
      const push = await readPush(this.repos, change);
      if (push) pushes.push(push);
    }
    return [
      {
        id,
        outcome: verdict.outcome,
        subject: verdict.subject,
        rowId,
        tokenRowId,
        needsVerification: verdict.needsVerification ?? false,
        detail: verdict.detail ?? null,
        summary,
        pushes,
      },
    ];
  }

  /** Later copies marked duplicate while this one was an orphan now point at the same rows. */
  private async linkDuplicates(n: StoredNotification, verdict: Verdict): Promise<void> {
    for (const copy of await this.repos.notifications.laterDuplicates(n.id)) await this.repos.notifications.markOutcome(copy.id, 'duplicate', verdict);
  }

  private async decide(n: StoredNotification): Promise<Verdict> {
    if (n.rawPrunedAt !== null) return this.decidePruned(n);
    let body: unknown;
    try {
      body = parseJson(n.body.toString('utf8'));
    } catch (error) {
      return { outcome: 'malformed', subject: null, detail: `not exact JSON: ${(error as Error).message}` };
    }
    return this.decideBody(n, body);
  }

  /**
   * An orphan whose body and headers the retention rule dropped (services/notification-retention):
   * its facts (event, ids, status) stayed with the row, so its claim stands as any other's, to be
   * verified by a status read; what only the body said (amount, currency, a token) is gone.
   */
  private async decidePruned(n: StoredNotification): Promise<Verdict> {
    const verdict = await this.decideBody(n, {});
    if (verdict.outcome === 'orphan' || verdict.outcome === 'duplicate') return verdict;
    const gone = `its body was dropped by the notification retention rule on ${n.rawPrunedAt}`;
    // A vaulting result's news is the token and card in its body, not a status to compare.
    if (eventSpec(n.event)?.statusOf === 'vaulting') return { ...verdict, detail: `${gone}, with the token and card it carried: tokenize the card again` };
    return { ...verdict, detail: `${verdict.detail ? `${verdict.detail}; ` : ''}${gone}: amount and currency not compared` };
  }

  private async decideBody(n: StoredNotification, body: unknown): Promise<Verdict> {
    if (!isJsonObject(body)) return { outcome: 'malformed', subject: null, detail: 'not a JSON object' };
    const statusCode = n.statusCode;
    if (statusCode === null) return { outcome: 'malformed', subject: null, detail: 'no status_code' };
    const event = n.event;
    if (!isNotificationEvent(event)) return { outcome: 'malformed', subject: null, detail: `unknown event ${event ?? '(none)'}` };
    const original = await this.repos.notifications.firstWithSameKey(n.id);
    if (original) {
      return {
        outcome: 'duplicate',
        subject: EVENT_SPECS[event].subject,
        detail: `duplicate of notification ${original.id}`,
        payinRowId: original.payinRowId,
        payoutRowId: original.payoutRowId,
        tokenRowId: original.tokenRowId,
      };
    }
    return this.appliers[event](n, body, statusCode);
  }

  /** One way to apply each event of the spec (a new event without its own fails the typecheck). */
  private readonly appliers: Record<NotificationEvent, (n: StoredNotification, body: Record<string, unknown>, statusCode: string) => Promise<Verdict>> = {
    v2_payin_notification: (n, body, statusCode) => this.applyClaim('payin', n, body, statusCode),
    v2_tokenization_notification: (n, body) => this.applyTokenization(n, body),
    v2_payout_notification: (n, body, statusCode) => this.applyClaim('payout', n, body, statusCode),
  };

  /** The pay-in or payout a notification names, by its event's subject; undefined for an unknown event. */
  private async findTransaction(n: StoredNotification) {
    const subject = subjectOf(n.event);
    return subject === null ? undefined : this.findRow(subject, n);
  }

  /** The row a notification names: by the gateway's id, else by the merchant's reference. */
  private async findRow(kind: TransactionKind, n: StoredNotification): Promise<PayinRecord | PayoutRecord | undefined> {
    const store = TRANSACTION_KINDS[kind].store(this.repos);
    return (n.transactionRef && (await store.byGatewayId(n.transactionRef, n.profileId))) || (n.requestRef && (await store.byReference(n.profileId, n.requestRef))) || undefined;
  }

  /** A pay-in's or payout's notification: a claim of its status on the row it names (it moves no status). */
  private async applyClaim(kind: TransactionKind, n: StoredNotification, body: Record<string, unknown>, statusCode: string): Promise<Verdict> {
    const entry = TRANSACTION_KINDS[kind];
    const fields = entry.notificationBody.parse(body);
    const row = await this.findRow(kind, n);
    if (!row) return { outcome: 'orphan', subject: kind, detail: `no ${entry.noun} with this ${entry.gatewayIdField} or ${entry.referenceField} yet` };
    const store = entry.store(this.repos);
    const { reference, gatewayId } = transactionOf(row);
    // Found by its gateway's id, it holds it already.
    if (n.transactionRef && n.transactionRef !== gatewayId) await store.attachGatewayId(row.id, n.transactionRef);
    const otherReference = entry.notifiedReferenceCompared && n.requestRef && n.requestRef !== reference ? `${entry.referenceField} ${n.requestRef}` : null;
    const facts = this.contradictions(row, fields.amount, fields.currency, otherReference);
    if (facts) await store.noteConflict(row.id, `notification ${n.id}: ${facts}`, 'facts');
    const applied = await applyStatus<TransactionRecord>(store, row.id, { statusCode, reasonCode: fields.reason_code ?? null, source: 'notification' });
    return this.statusVerdict(kind, applied.outcome, applied.record, facts, entry.rowLinks(row.id));
  }

  /** The token and card metadata; the pay-in's own status comes with its v2_payin_notification. */
  private async applyTokenization(n: StoredNotification, body: Record<string, unknown>): Promise<Verdict> {
    const fields = TokenizationNotificationSchema.parse(body);
    const row = (await this.findRow('payin', n)) as PayinRecord | undefined;
    if (!row) return { outcome: 'orphan', subject: 'payin', detail: 'no pay-in with this payin_id or request_id yet' };
    if (!fields.token) return { outcome: 'applied', subject: 'payin', payinRowId: row.id, detail: `no token issued (status ${n.statusCode})` };
    const digits = (value: string | null | undefined, length: number) => (value && new RegExp(`^\\d{${length}}$`).test(value) ? value : null);
    const token = await this.repos.tokens.upsert({
      profileId: n.profileId,
      tokenRef: fields.token,
      brand: fields.card?.brand ?? null,
      bin: digits(fields.card?.bin, 6),
      last4: digits(fields.card?.last4, 4),
      expMonth: fields.card?.exp_month ?? null,
      expYear: fields.card?.exp_year ?? null,
      payinId: row.payinId ?? n.transactionRef,
      requestId: row.requestId,
    });
    return { outcome: 'applied', subject: 'payin', payinRowId: row.id, tokenRowId: token.id, detail: null };
  }

  /** What the notification says that contradicts the ledger, other than the status. */
  private contradictions(row: TransactionRecord, amount: unknown, currency: string | null | undefined, other: string | null): string | null {
    const found = [moneyContradictions(row, amount, currency), other].filter((text) => text !== null);
    return found.length > 0 ? found.join(', ') : null;
  }

  private statusVerdict(subject: TransactionKind, outcome: StatusOutcome, record: TransactionRecord, facts: string | null, links: OutcomeLinks): Verdict {
    if (outcome === 'conflict' || facts) {
      return { ...links, outcome: 'mismatch', subject, needsVerification: true, detail: facts ?? record.statusConflict ?? record.conflict };
    }
    if (outcome === 'stale') {
      return { ...links, outcome: 'stale', subject, needsVerification: false, detail: `status ${record.final ? record.statusCode : (record.lastNotifiedStatus ?? record.statusCode)} already holds; this older news changes nothing` };
    }
    if (outcome === 'claimed') {
      return { ...links, outcome: 'applied', subject, needsVerification: true, detail: `claims status ${record.lastNotifiedStatus}; a status read must confirm it` };
    }
    return { ...links, outcome: 'applied', subject, needsVerification: false, detail: null };
  }
}
