// Ledger records → the contract's plain views. Everything that leaves here is fit for the
// renderer: stored requests are already redacted, gateway answers are redacted again on the way
// out (a gateway that echoed a card number would not get it past this point).
import type { AttemptView, CardView, PayinView, PayoutView, StatusReadView, TokenView } from '../../../shared/contract';
import { isJsonObject, parseJson, stringifyJson } from '../../../shared/json';
import { maskPansIn, redact } from '../../../shared/redact';
import type { Attempt, AttemptsRepository, AttemptSummary } from '../../ledger/repositories/attempts';
import type { PayinRecord } from '../../ledger/repositories/payins';
import type { PayoutRecord } from '../../ledger/repositories/payouts';
import type { StatusRead } from '../../ledger/repositories/status-reads';
import type { CardToken } from '../../ledger/repositories/tokens';
import type { CardFacts, CardsRepository } from '../../ledger/repositories/cards';
import type { TransactionRecord } from '../../ledger/repositories/transactions';
import { TRANSACTION_KINDS, type TransactionKind } from '../../transaction-kinds';

const MAX_TEXT = 16_384;

/** A gateway answer for display: JSON redacted (card numbers, CVV, JWTs, credentials), other text masked and bounded. */
export function safeBody(text: string | null): string | null {
  if (text === null) return null;
  try {
    const value = parseJson(text);
    if (isJsonObject(value) || Array.isArray(value)) return stringifyJson(redact(value));
  } catch {
    // Not JSON (a proxy's HTML page): shown as text.
  }
  return maskPansIn(text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text);
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
    error: a.error === null ? null : maskPansIn(a.error),
    request: safeBody(a.requestBody) ?? '',
    response: safeBody(a.responseBody),
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
    lastSentAt: a.lastSentAt,
    completedAt: a.completedAt,
  };
}

/** First 6 and last 4 digits as the screens show them; null unless both were recorded. */
const maskedPanOf = (bin: string | null, last4: string | null): string | null => (bin && last4 ? `${bin}******${last4}` : null);

/** The card a transaction row recorded, as the contract shows it. */
export function cardView(card: CardFacts | null): CardView | null {
  return card && { brand: card.brand, maskedPan: maskedPanOf(card.bin, card.last4), expMonth: card.expMonth, expYear: card.expYear };
}

/** Where views find their rows' attempts and cards: one query each for a whole page, not one per row. */
export interface ViewLookups {
  attempts: Pick<AttemptsRepository, 'summaries'>;
  cards: Pick<CardsRepository, 'of'>;
}

function transactionFields(r: TransactionRecord, kind: TransactionKind, attempt: AttemptSummary | undefined, card: CardFacts | undefined) {
  const info = r.statusCode === null ? null : TRANSACTION_KINDS[kind].describeStatus(r.statusCode);
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
    attempt: attempt ? { idempotencyKey: attempt.idempotencyKey, state: attempt.state, settleNote: attempt.settleNote === null ? null : maskPansIn(attempt.settleNote) } : null,
    notificationsUnreachable: r.notifyUnreachable,
    card: cardView(card ?? null),
  };
}

const attemptsOf = (records: readonly TransactionRecord[], lookups: ViewLookups) =>
  lookups.attempts.summaries(records.flatMap((r) => (r.attemptId === null ? [] : [r.attemptId])));

/** The contract's view of a pay-in row, given its create attempt's state and its card. */
export function payinViewOf(r: PayinRecord, attempt: AttemptSummary | undefined, card: CardFacts | undefined): PayinView {
  return { ...transactionFields(r, 'payin', attempt, card), kind: r.kind, requestId: r.requestId, payinId: r.payinId, redirectUrl: r.redirectUrl };
}

export function payoutViewOf(r: PayoutRecord, attempt: AttemptSummary | undefined, card: CardFacts | undefined): PayoutView {
  return { ...transactionFields(r, 'payout', attempt, card), merchantReference: r.merchantReference, payoutId: r.payoutId };
}

/** The contract's views of pay-in rows (a list page), with their create attempts' states and cards. */
export async function payinViews(records: readonly PayinRecord[], lookups: ViewLookups): Promise<PayinView[]> {
  const found = await attemptsOf(records, lookups);
  const cards = await lookups.cards.of('payin', records.map((r) => r.id));
  return records.map((r) => payinViewOf(r, r.attemptId === null ? undefined : found.get(r.attemptId), cards.get(r.id)));
}

export async function payoutViews(records: readonly PayoutRecord[], lookups: ViewLookups): Promise<PayoutView[]> {
  const found = await attemptsOf(records, lookups);
  const cards = await lookups.cards.of('payout', records.map((r) => r.id));
  return records.map((r) => payoutViewOf(r, r.attemptId === null ? undefined : found.get(r.attemptId), cards.get(r.id)));
}

/** The contract's view of one pay-in row, with its create attempt's state and its card. */
export async function payinView(r: PayinRecord, lookups: ViewLookups): Promise<PayinView> {
  return (await payinViews([r], lookups))[0] as PayinView;
}

export async function payoutView(r: PayoutRecord, lookups: ViewLookups): Promise<PayoutView> {
  return (await payoutViews([r], lookups))[0] as PayoutView;
}

export function tokenView(t: CardToken): TokenView {
  return {
    id: t.id,
    profileId: t.profileId,
    tokenRef: t.tokenRef,
    brand: t.brand,
    bin: t.bin,
    last4: t.last4,
    maskedPan: maskedPanOf(t.bin, t.last4),
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
    error: r.error === null ? null : maskPansIn(r.error),
    retryAfterSeconds,
    requestedAt: r.requestedAt,
    respondedAt: r.respondedAt,
    response: safeBody(r.responseBody),
  };
}
