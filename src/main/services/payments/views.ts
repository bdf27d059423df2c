// Ledger records → the contract's plain views. Everything that leaves here is fit for the
// renderer: stored requests are already redacted, gateway answers are redacted again on the way
// out (a gateway that echoed a card number would not get it past this point).
import type { AttemptView, PayinView, PayoutView, StatusReadView, TokenView } from '../../../shared/contract';
import { describePayinStatus, describePayoutStatus } from '../../../shared/spec/codes';
import { isJsonObject, parseJson, stringifyJson } from '../../../shared/json';
import { looksLikePan, maskPan, redact } from '../../../shared/redact';
import type { Attempt, AttemptsRepository, AttemptSummary } from '../../ledger/repositories/attempts';
import type { PayinRecord } from '../../ledger/repositories/payins';
import type { PayoutRecord } from '../../ledger/repositories/payouts';
import type { StatusRead } from '../../ledger/repositories/status-reads';
import type { CardToken } from '../../ledger/repositories/tokens';
import type { TransactionRecord } from '../../ledger/repositories/transactions';

const MAX_TEXT = 16_384;
const DIGIT_RUN = /\d(?:[ -]?\d){12,18}/g;

/** Masks anything that looks like a card number in free text (messages, non-JSON answers). */
export function maskText(text: string): string {
  return text.replace(DIGIT_RUN, (run) => (looksLikePan(run) ? maskPan(run) : run));
}

/** A gateway answer for display: JSON redacted (card numbers, CVV, JWTs, credentials), other text masked and bounded. */
export function safeBody(text: string | null): string | null {
  if (text === null) return null;
  try {
    const value = parseJson(text);
    if (isJsonObject(value) || Array.isArray(value)) return stringifyJson(redact(value));
  } catch {
    // Not JSON (a proxy's HTML page): shown as text.
  }
  return maskText(text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text);
}

export function attemptView(a: Attempt): AttemptView {
  return {
    id: a.id,
    profileId: a.profileId,
    kind: a.kind,
    idempotencyKey: a.idempotencyKey,
    reference: a.reference,
    state: a.state,
    sendCount: a.tryCount,
    httpStatus: a.httpStatus,
    responseSource: a.responseSource,
    error: a.error === null ? null : maskText(a.error),
    request: safeBody(a.requestBody) ?? '',
    response: safeBody(a.responseBody),
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
    lastSentAt: a.lastSentAt,
    completedAt: a.completedAt,
  };
}

/** Where views find their rows' attempts: one query for a whole page, not one per row. */
export type AttemptLookup = Pick<AttemptsRepository, 'summaries'>;

function transactionFields(r: TransactionRecord, kind: 'payin' | 'payout', attempt: AttemptSummary | undefined) {
  const info = r.statusCode === null ? null : kind === 'payin' ? describePayinStatus(r.statusCode) : describePayoutStatus(r.statusCode);
  return {
    id: r.id,
    profileId: r.profileId,
    method: r.method,
    amount: r.amount,
    currency: r.currency,
    email: r.email,
    statusCode: r.statusCode,
    statusKnown: r.statusKnown,
    statusMeaning: info?.meaning ?? null,
    statusCategory: r.statusCategory,
    final: r.final,
    reasonCode: r.reasonCode,
    reasonKnown: r.reasonKnown,
    statusChangedAt: r.statusChangedAt,
    gatewayCreatedAt: r.gatewayCreatedAt,
    lastNotifiedStatus: r.lastNotifiedStatus,
    lastNotifiedAt: r.lastNotifiedAt,
    lastVerifiedStatus: r.lastVerifiedStatus,
    lastVerifiedAt: r.lastVerifiedAt,
    claimState: r.claimState,
    conflict: r.conflict,
    statusConflict: r.statusConflict,
    factsConflict: r.factsConflict,
    mismatch: r.mismatch,
    verification: r.verification,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    attemptId: r.attemptId,
    attempt: attempt ? { idempotencyKey: attempt.idempotencyKey, state: attempt.state } : null,
  };
}

const attemptsOf = (records: readonly TransactionRecord[], attempts: AttemptLookup) =>
  attempts.summaries(records.flatMap((r) => (r.attemptId === null ? [] : [r.attemptId])));

/** The contract's views of pay-in rows (a list page), with their create attempts' states. */
export function payinViews(records: readonly PayinRecord[], attempts: AttemptLookup): PayinView[] {
  const found = attemptsOf(records, attempts);
  return records.map((r) => ({
    ...transactionFields(r, 'payin', r.attemptId === null ? undefined : found.get(r.attemptId)),
    kind: r.kind,
    requestId: r.requestId,
    payinId: r.payinId,
    redirectUrl: r.redirectUrl,
  }));
}

export function payoutViews(records: readonly PayoutRecord[], attempts: AttemptLookup): PayoutView[] {
  const found = attemptsOf(records, attempts);
  return records.map((r) => ({
    ...transactionFields(r, 'payout', r.attemptId === null ? undefined : found.get(r.attemptId)),
    merchantReference: r.merchantReference,
    payoutId: r.payoutId,
  }));
}

/** The contract's view of one pay-in row, with its create attempt's state. */
export function payinView(r: PayinRecord, attempts: AttemptLookup): PayinView {
  return payinViews([r], attempts)[0] as PayinView;
}

export function payoutView(r: PayoutRecord, attempts: AttemptLookup): PayoutView {
  return payoutViews([r], attempts)[0] as PayoutView;
}

export function tokenView(t: CardToken): TokenView {
  return {
    id: t.id,
    profileId: t.profileId,
    tokenRef: t.tokenRef,
    brand: t.brand,
    bin: t.bin,
    last4: t.last4,
    maskedPan: t.bin && t.last4 ? `${t.bin}******${t.last4}` : null,
    expMonth: t.expMonth,
    expYear: t.expYear,
    state: t.state,
    payinId: t.payinId,
    requestId: t.requestId,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

export function statusReadView(r: StatusRead, retryAfterSeconds: number | null = null): StatusReadView {
  return {
    id: r.id,
    kind: r.kind,
    reference: r.reference,
    result: r.result,
    httpStatus: r.httpStatus,
    statusCode: r.statusCode,
    error: r.error === null ? null : maskText(r.error),
    retryAfterSeconds,
    requestedAt: r.requestedAt,
    respondedAt: r.respondedAt,
    response: safeBody(r.responseBody),
  };
}
