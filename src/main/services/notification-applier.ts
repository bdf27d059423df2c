// The apply step: turns stored notifications into ledger facts. A notification is a claim (the
// spec documents no signature), so it does not move the pay-in / payout's status: it is recorded
// as the notified status, "unverified" until a status read agrees (services/verification). Duplicates are recognised by their dedupe
// key, a notification for a transaction we do not know yet is kept as an orphan and applied
// when the transaction appears, and nothing here ever deletes or rewrites what was received.
import { parseJson, isJsonObject, numberText } from '../../shared/json';
import { compareAmounts, parseDecimal } from '../../shared/money';
import { PayinNotificationSchema, PayoutNotificationSchema, TokenizationNotificationSchema } from '../../shared/spec/schemas';
import type { Ledger } from '../ledger/connection';
import { createRepositories, type Repositories } from '../ledger/repositories/index';
import type { NotificationOutcome, OutcomeLinks, StoredNotification } from '../ledger/repositories/notifications';
import type { StatusOutcome, TransactionRecord } from '../ledger/repositories/transactions';
import { systemClock, type Clock } from '../ledger/support';
import type { Logger } from '../logger';

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
}

export interface NotificationApplierOptions {
  db: Ledger;
  now?: Clock;
  log?: Logger;
  /** Every result, for live UI updates and for scheduling verification reads. Must not throw. */
  onApplied?: (result: AppliedNotification) => void;
}

interface Verdict extends OutcomeLinks {
  outcome: Exclude<NotificationOutcome, 'pending'>;
  subject: 'payin' | 'payout' | null;
  needsVerification?: boolean;
}

const silent: Logger = { info: () => {}, warn: () => {}, error: () => {} };

export class NotificationApplier {
  private readonly repos: Repositories;
  private readonly log: Logger;
  private queue: number[] = [];
  private scheduled = false;

  constructor(private readonly options: NotificationApplierOptions) {
    this.repos = createRepositories(options.db, options.now ?? systemClock);
    this.log = options.log ?? silent;
  }

  /** The listener's onStored: ids arriving together are applied in one transaction. */
  enqueue(id: number): void {
    this.queue.push(id);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.applyMany(this.queue.splice(0));
    });
  }

  /** Applies pending notifications in one transaction; falls back to one by one if that fails. */
  applyMany(ids: readonly number[]): AppliedNotification[] {
    if (ids.length === 0) return [];
    let results: AppliedNotification[];
    try {
      results = this.options.db.transaction(() => ids.flatMap((id) => this.applyOne(id)))();
    } catch (error) {
      this.log.error('applying a batch of notifications failed; retrying them one by one', error);
      results = ids.flatMap((id) => {
        try {
          return this.options.db.transaction(() => this.applyOne(id))();
        } catch (inner) {
          // Left pending: recoverPending() retries it at the next start, and it stays visible.
          this.log.error(`notification ${id} could not be applied`, inner);
          return [];
        }
      });
    }
    for (const result of results) this.publish(result);
    return results;
  }

  apply(id: number): AppliedNotification | undefined {
    return this.applyMany([id])[0];
  }

  /** At start-up: applies what was stored but not applied before the last exit. Returns how many. */
  recoverPending(maxRounds = 100): number {
    let applied = 0;
    for (let round = 0; round < maxRounds; round++) {
      const ids = this.repos.notifications.pendingIds(1000);
      if (ids.length === 0) break;
      const results = this.applyMany(ids);
      applied += results.length;
      if (results.length === 0) break; // every one failed: do not spin
    }
    return applied;
  }

  /**
   * Applies the orphans waiting for a transaction that just became known (call after recording
   * a create answer). Returns what became of them.
   */
  matchOrphans(subject: 'payin' | 'payout', rowId: number): AppliedNotification[] {
    const row = subject === 'payin' ? this.repos.payins.byId(rowId) : this.repos.payouts.byId(rowId);
    if (!row) return [];
    const refs =
      'payinId' in row ? { transactionRef: row.payinId, requestRef: row.requestId } : { transactionRef: row.payoutId, requestRef: row.merchantReference };
    const events = subject === 'payin' ? ['v2_payin_notification', 'v2_tokenization_notification'] : ['v2_payout_notification'];
    const orphans = this.repos.notifications.orphansFor(row.profileId, refs).filter((n) => n.event !== null && events.includes(n.event));
    const results = this.options.db.transaction(() => orphans.flatMap((n) => this.applyOne(n.id, true)))();
    for (const result of results) this.publish(result);
    return results;
  }

  /**
   * Applies again a notification kept as an orphan or left pending (the webhook inspector's
   * replay of such a one). Returns what became of it, or undefined for another outcome.
   */
  retry(id: number): AppliedNotification | undefined {
    const results = this.options.db.transaction(() => this.applyOne(id, true))();
    for (const result of results) this.publish(result);
    return results[0];
  }

  /**
   * Orphans whose pay-in or payout has been recorded since (by any path) are applied now; the
   * others are left untouched. Run at start-up and before a reconciliation sweep.
   */
  retryOrphans(limit = 10_000): AppliedNotification[] {
    const orphans = this.repos.notifications.withOutcome('orphan', limit);
    const known = orphans.filter((n) => (n.event === 'v2_payout_notification' ? this.findPayout(n) : this.findPayin(n)) !== undefined);
    if (known.length === 0) return [];
    const results = this.options.db.transaction(() => known.flatMap((n) => this.applyOne(n.id, true)))();
    for (const result of results) this.publish(result);
    return results;
  }

  private publish(result: AppliedNotification): void {
    try {
      this.options.onApplied?.(result);
    } catch (error) {
      this.log.error('onApplied failed', error);
    }
  }

  private applyOne(id: number, retryOrphan = false): AppliedNotification[] {
    const { notifications } = this.repos;
    const n = notifications.byId(id);
    if (!n || !(n.outcome === 'pending' || (retryOrphan && n.outcome === 'orphan'))) return [];
    const verdict = this.decide(n);
    notifications.markOutcome(id, verdict.outcome, verdict);
    if (verdict.outcome !== 'orphan' && verdict.outcome !== 'duplicate') this.linkDuplicates(n, verdict);
    return [
      {
        id,
        outcome: verdict.outcome,
        subject: verdict.subject,
        rowId: verdict.payinRowId ?? verdict.payoutRowId ?? null,
        tokenRowId: verdict.tokenRowId ?? null,
        needsVerification: verdict.needsVerification ?? false,
        detail: verdict.detail ?? null,
      },
    ];
  }

  /** Later copies marked duplicate while this one was an orphan now point at the same rows. */
  private linkDuplicates(n: StoredNotification, verdict: Verdict): void {
    for (const copy of this.repos.notifications.laterDuplicates(n.id)) this.repos.notifications.markOutcome(copy.id, 'duplicate', verdict);
  }

  private decide(n: StoredNotification): Verdict {
    let body: unknown;
    try {
      body = parseJson(n.body.toString('utf8'));
    } catch (error) {
      return { outcome: 'malformed', subject: null, detail: `not exact JSON: ${(error as Error).message}` };
    }
    if (!isJsonObject(body)) return { outcome: 'malformed', subject: null, detail: 'not a JSON object' };
    const statusCode = n.statusCode;
    if (statusCode === null) return { outcome: 'malformed', subject: null, detail: 'no status_code' };
    const subject = n.event === 'v2_payout_notification' ? 'payout' : 'payin';
    const original = this.repos.notifications.firstWithSameKey(n.id);
    if (original) {
      return {
        outcome: 'duplicate',
        subject,
        detail: `duplicate of notification ${original.id}`,
        payinRowId: original.payinRowId,
        payoutRowId: original.payoutRowId,
        tokenRowId: original.tokenRowId,
      };
    }
    if (n.event === 'v2_payout_notification') return this.applyPayout(n, body, statusCode);
    if (n.event === 'v2_tokenization_notification') return this.applyTokenization(n, body);
    if (n.event === 'v2_payin_notification') return this.applyPayin(n, body, statusCode);
    return { outcome: 'malformed', subject: null, detail: `unknown event ${n.event ?? '(none)'}` };
  }

  private findPayin(n: StoredNotification) {
    const { payins } = this.repos;
    return (n.transactionRef && payins.byPayinId(n.transactionRef, n.profileId)) || (n.requestRef && payins.byRequestId(n.profileId, n.requestRef)) || undefined;
  }

  private findPayout(n: StoredNotification) {
    const { payouts } = this.repos;
    return (n.transactionRef && payouts.byPayoutId(n.transactionRef, n.profileId)) || (n.requestRef && payouts.byMerchantReference(n.profileId, n.requestRef)) || undefined;
  }

  private applyPayin(n: StoredNotification, body: Record<string, unknown>, statusCode: string): Verdict {
    const fields = PayinNotificationSchema.parse(body);
    const row = this.findPayin(n);
    if (!row) return { outcome: 'orphan', subject: 'payin', detail: 'no pay-in with this payin_id or request_id yet' };
    const payins = this.repos.payins;
    if (n.transactionRef) payins.attachGatewayId(row.id, n.transactionRef);
    const facts = this.contradictions(row, fields.amount, fields.currency, n.requestRef && n.requestRef !== row.requestId ? `request_id ${n.requestRef}` : null);
    if (facts) payins.noteConflict(row.id, `notification ${n.id}: ${facts}`, 'facts');
    const applied = payins.applyStatus(row.id, { statusCode, reasonCode: fields.reason_code ?? null, source: 'notification' });
    return this.statusVerdict('payin', applied.outcome, applied.record, facts, { payinRowId: row.id });
  }

  private applyPayout(n: StoredNotification, body: Record<string, unknown>, statusCode: string): Verdict {
    const fields = PayoutNotificationSchema.parse(body);
    const { payouts } = this.repos;
    const row = this.findPayout(n);
    if (!row) return { outcome: 'orphan', subject: 'payout', detail: 'no payout with this payout_id or merchantReference yet' };
    if (n.transactionRef) payouts.attachGatewayId(row.id, n.transactionRef);
    const facts = this.contradictions(row, fields.amount, fields.currency, null);
    if (facts) payouts.noteConflict(row.id, `notification ${n.id}: ${facts}`, 'facts');
    const applied = payouts.applyStatus(row.id, { statusCode, reasonCode: fields.reason_code ?? null, source: 'notification' });
    return this.statusVerdict('payout', applied.outcome, applied.record, facts, { payoutRowId: row.id });
  }

  /** The token and card metadata; the pay-in's own status comes with its v2_payin_notification. */
  private applyTokenization(n: StoredNotification, body: Record<string, unknown>): Verdict {
    const fields = TokenizationNotificationSchema.parse(body);
    const row = this.findPayin(n);
    if (!row) return { outcome: 'orphan', subject: 'payin', detail: 'no pay-in with this payin_id or request_id yet' };
    if (!fields.token) return { outcome: 'applied', subject: 'payin', payinRowId: row.id, detail: `no token issued (status ${n.statusCode})` };
    const digits = (value: string | null | undefined, length: number) => (value && new RegExp(`^\\d{${length}}$`).test(value) ? value : null);
    const token = this.repos.tokens.upsert({
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
    const found: string[] = [];
    if (amount !== undefined && amount !== null) {
      const text = typeof amount === 'string' ? amount : numberText(amount);
      const value = text === undefined ? undefined : parseDecimal(text);
      if (value === undefined || compareAmounts(value.toFixed(), row.amount) !== 0) found.push(`amount ${text ?? String(amount)} instead of ${row.amount}`);
    }
    if (currency && currency !== row.currency) found.push(`currency ${currency} instead of ${row.currency}`);
    if (other) found.push(other);
    return found.length > 0 ? found.join(', ') : null;
  }

  private statusVerdict(subject: 'payin' | 'payout', outcome: StatusOutcome, record: TransactionRecord, facts: string | null, links: OutcomeLinks): Verdict {
    if (outcome === 'conflict' || facts) {
      return { ...links, outcome: 'mismatch', subject, needsVerification: true, detail: facts ?? record.statusConflict ?? record.conflict };
    }
    if (outcome === 'stale') {
      return { ...links, outcome: 'applied', subject, needsVerification: false, detail: `status ${record.final ? record.statusCode : (record.lastNotifiedStatus ?? record.statusCode)} already holds; this older news changes nothing` };
    }
    if (outcome === 'claimed') {
      return { ...links, outcome: 'applied', subject, needsVerification: true, detail: `claims status ${record.lastNotifiedStatus}; a status read must confirm it` };
    }
    return { ...links, outcome: 'applied', subject, needsVerification: false, detail: null };
  }
}
