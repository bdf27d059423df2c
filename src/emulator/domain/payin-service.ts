// Pay-in lifecycle: 100 (pending redirect) -> optional 101 (pending) -> one final code, then
// v2_payin_notification. A final status never changes again. Tokenization pay-ins also vault
// the card and send v2_tokenization_notification right after creation.
import { LosslessNumber } from '../../shared/json';
import { describePayinStatus } from '../../shared/spec/codes';
import { iso } from '../runtime';
import type { PayinRecord, PayinRepo } from '../store/payins';
import type { CardMetadata, TokenRepo } from '../store/tokens';
import { payinScenario } from './scenario';
import { moveStatus, type LifecycleDeps, type MoveResult, type StatusMoves } from './lifecycle';
import type { PlainAnswer } from '../api/replies';

/** A pay-in as the create asks for it: the record's facts before the gateway gives it an id and a status. */
export type NewPayin = Pick<PayinRecord, 'merchant_id' | 'request_id' | 'kind' | 'payment_method' | 'amount' | 'currency' | 'email' | 'country' | 'urls' | 'card' | 'token'>;

export type CompleteResult = MoveResult<PayinRecord>;

/** Card problems that make the vaulting itself fail when requested by a scenario tag. */
const TOKENIZATION_FAILURES = new Set([317, 318, 319, 320, 517]);

export const isPendingPayin = (code: number): boolean => code === 100 || code === 101;

/** "success" while pending or succeeded, "failed" once a failure is final (spec 2.2 enum). */
export const payinStatusWord = (code: number): string => (isPendingPayin(code) || code === 200 ? 'success' : 'failed');

export interface PayinServiceDeps extends LifecycleDeps {
  payins: PayinRepo;
  tokens: TokenRepo;
}

export class PayinService {
  private readonly moves: StatusMoves<PayinRecord, number>;

  constructor(private readonly d: PayinServiceDeps) {
    this.moves = {
      subject: 'payin',
      store: d.payins,
      isPending: isPendingPayin,
      processing: 101,
      describe: describePayinStatus,
      notificationUrl: (p) => p.urls.notification_link,
      view: (p) => this.view(p),
    };
  }

  /** Undefined when the merchant already used this request_id. */
  create(input: NewPayin, origin: string): PayinRecord | undefined {
    const now = iso(this.d.clock.now());
    const payin_id = this.d.ids.uuid();
    const scenario = payinScenario(input.email);
    // Field by field rather than a spread of `input`: V8 builds such large spread literals slowly.
    const record: PayinRecord = {
      merchant_id: input.merchant_id,
      request_id: input.request_id,
      kind: input.kind,
      payment_method: input.payment_method,
      amount: input.amount,
      currency: input.currency,
      email: input.email,
      country: input.country,
      urls: { ...input.urls, redirect_url: `${origin}/pay/${payin_id}` },
      card: input.card,
      token: input.token,
      payin_id,
      status_code: 100,
      reason_code: null,
      scenario: scenario === null ? null : String(scenario),
      created_at: now,
      updated_at: now,
    };
    if (!this.d.payins.insert(record)) return undefined;
    if (input.kind === 'tokenization') this.vault(record, scenario);
    if (scenario !== null) this.d.afterCommit(() => this.d.timers.after(this.d.timing.payinCompleteMs, () => this.runScenario(payin_id)));
    return record;
  }

  /** Re-arms automatic scenarios of pay-ins left pending by an earlier run. */
  resume(): void {
    for (const p of this.d.payins.pendingScenarios()) this.d.timers.after(this.d.timing.payinCompleteMs, () => this.runScenario(p.payin_id));
  }

  complete(payinId: string, statusCode: number, reasonCode?: string | null): CompleteResult {
    if (!Number.isInteger(statusCode) || statusCode < 101 || statusCode > 999) return { ok: false, why: 'invalid_code' };
    return moveStatus(this.moves, this.d, payinId, statusCode, reasonCode);
  }

  /** Body of the status read and of the notification (2.2 plus our documented fields). */
  view(p: PayinRecord): Record<string, unknown> {
    return {
      status: payinStatusWord(p.status_code),
      status_code: p.status_code,
      reason_code: p.reason_code,
      request_id: p.request_id,
      payin_id: p.payin_id,
      redirect_url: p.urls.redirect_url ?? null,
      amount: new LosslessNumber(p.amount),
      currency: p.currency,
      payment_method: p.payment_method,
      created_at: p.created_at,
      updated_at: p.updated_at,
    };
  }

  /** Spec 2.2: the answer of the three create endpoints. */
  createResponse(p: PayinRecord): PlainAnswer {
    return {
      status: 'success',
      status_code: p.status_code,
      request_id: p.request_id,
      payin_id: p.payin_id,
      redirect_url: p.urls.redirect_url,
      created_at: p.created_at,
    };
  }

  private runScenario(payinId: string): void {
    const p = this.d.payins.byId(payinId);
    if (!p || p.scenario === null || !isPendingPayin(p.status_code)) return;
    const code = Number(p.scenario);
    if (code === 100) return; // "stay pending redirect": the hosted page or the admin API moves it
    this.complete(payinId, code);
  }

  private vault(p: PayinRecord, scenario: number | null): void {
    const card = p.card as CardMetadata;
    const failed = scenario !== null && TOKENIZATION_FAILURES.has(scenario);
    let token: string | null = null;
    if (!failed) {
      token = this.d.ids.secret('tok_');
      this.d.tokens.insert({ ...card, token, merchant_id: p.merchant_id, payin_id: p.payin_id, revoked: false, created_at: p.created_at });
    }
    const info = failed ? describePayinStatus(scenario) : undefined;
    const url = p.urls.tokenization_notification_url as string;
    this.d.notifier.enqueue(
      'v2_tokenization_notification',
      url,
      {
        event: 'v2_tokenization_notification',
        status: failed ? 'failed' : 'success',
        status_code: failed ? scenario : 200,
        reason_code: info?.known ? info.defaultReason : null,
        request_id: p.request_id,
        payin_id: p.payin_id,
        token,
        card: { brand: card.brand, bin: card.bin, last4: card.last4, exp_month: card.exp_month, exp_year: card.exp_year },
      },
      p.payin_id,
    );
  }
}
