// Gateway answers → ledger facts. Every status goes through the repositories' forward-only
// applyStatus (a final status never regresses; a contradicting final one is kept as a conflict),
// and every status read is recorded whatever it returned, for the transaction's timeline.
import { isJsonObject, numberText } from '../../../shared/json';
import { compareAmounts, parseDecimal } from '../../../shared/money';
import type { ErrorResponse, PayinStatusResponse, PayoutStatusResponse } from '../../../shared/spec/schemas';
import type { CallResult } from '../../gateway/result';
import { describeResult } from '../../gateway/result';
import type { Repositories } from '../../ledger/repositories/index';
import type { PayinRecord } from '../../ledger/repositories/payins';
import type { PayoutRecord } from '../../ledger/repositories/payouts';
import type { StatusRead, StatusReadResult } from '../../ledger/repositories/status-reads';
import type { TransactionRecord } from '../../ledger/repositories/transactions';

type Loose = Record<string, unknown>;

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const code = (value: unknown): string | number | null => (typeof value === 'number' || (typeof value === 'string' && value !== '') ? value : null);

/** The pay-in create answer (2.2), or the error answer (2.3) of a refused request. */
export function applyPayinCreateAnswer(repos: Repositories, row: PayinRecord, body: Loose): void {
  repos.payins.applyCreateAnswer(row.id, {
    payinId: text(body.payin_id),
    redirectUrl: text(body.redirect_url),
    statusCode: code(body.status_code),
    reasonCode: text(body.reason_code),
    createdAt: text(body.created_at),
  });
}

export function applyPayoutCreateAnswer(repos: Repositories, row: PayoutRecord, body: Loose): void {
  repos.payouts.applyCreateAnswer(row.id, {
    payoutId: text(body.payout_id),
    statusCode: code(body.status_code),
    reasonCode: text(body.reason_code),
    createdAt: text(body.created_at),
  });
}

/** A refused create call carries the refusal's code on the row; one without a code (a bare 413) changes nothing. */
export function applyRefusal(repos: Repositories, row: { kind: 'payin'; record: PayinRecord } | { kind: 'payout'; record: PayoutRecord }, body: ErrorResponse): void {
  const statusCode = code(body.status_code);
  if (statusCode === null) return;
  const answer = { statusCode, reasonCode: text(body.reason_code) };
  if (row.kind === 'payin') repos.payins.applyCreateAnswer(row.record.id, answer);
  else repos.payouts.applyCreateAnswer(row.record.id, answer);
}

/** What a status read says that contradicts the ledger, other than the status. */
function contradictions(row: TransactionRecord, body: Loose): string | null {
  const found: string[] = [];
  if (body.amount !== undefined && body.amount !== null) {
    const amount = typeof body.amount === 'string' ? body.amount : numberText(body.amount);
    const value = amount === undefined ? undefined : parseDecimal(amount);
    if (value === undefined || compareAmounts(value.toFixed(), row.amount) !== 0) found.push(`amount ${amount ?? '?'} instead of ${row.amount}`);
  }
  if (typeof body.currency === 'string' && body.currency !== row.currency) found.push(`currency ${body.currency} instead of ${row.currency}`);
  return found.length > 0 ? found.join(', ') : null;
}

/** A status read that found the pay-in: ids first (an unknown attempt never learnt them), then the status. */
export function applyPayinRead(repos: Repositories, row: PayinRecord, body: PayinStatusResponse): void {
  const loose = body as Loose;
  repos.payins.applyCreateAnswer(row.id, { payinId: text(loose.payin_id), redirectUrl: text(loose.redirect_url), createdAt: text(loose.created_at) });
  const facts = contradictions(row, loose);
  if (facts) repos.payins.noteConflict(row.id, `status read: ${facts}`);
  const statusCode = code(loose.status_code);
  if (statusCode !== null) repos.payins.applyStatus(row.id, { statusCode, reasonCode: text(loose.reason_code), source: 'status_read' });
}

export function applyPayoutRead(repos: Repositories, row: PayoutRecord, body: PayoutStatusResponse): void {
  const loose = body as Loose;
  repos.payouts.applyCreateAnswer(row.id, { payoutId: text(loose.payout_id), createdAt: text(loose.created_at) });
  const facts = contradictions(row, loose);
  if (facts) repos.payouts.noteConflict(row.id, `status read: ${facts}`);
  const statusCode = code(loose.status_code);
  if (statusCode !== null) repos.payouts.applyStatus(row.id, { statusCode, reasonCode: text(loose.reason_code), source: 'status_read' });
}

export interface ReadFacts {
  result: StatusReadResult;
  httpStatus: number | null;
  statusCode: string | number | null;
  responseBody: string | null;
  error: string | null;
  retryAfterSeconds: number | null;
  /** The transaction as the gateway sees it, when it was found. */
  found: Loose | null;
}

/** Classifies a status read's answer. A 400 naming the id in details is the emulator's "no such transaction". */
export function readFacts(result: CallResult<PayinStatusResponse | PayoutStatusResponse>, idFields: readonly string[]): ReadFacts {
  const none = { statusCode: null, responseBody: null, retryAfterSeconds: null, found: null };
  switch (result.kind) {
    case 'ok': {
      const body = result.body as Loose;
      return { ...none, result: 'ok', httpStatus: result.status, statusCode: code(body.status_code), responseBody: result.raw, error: null, found: body };
    }
    case 'rejected': {
      const details = result.body.details;
      const notFound = result.status === 400 && isJsonObject(details) && idFields.some((f) => f in details);
      return { ...none, result: notFound ? 'not_found' : 'rejected', httpStatus: result.status, responseBody: result.raw, error: describeResult(result) };
    }
    case 'rate_limited':
      return { ...none, result: 'rate_limited', httpStatus: 429, responseBody: result.raw, error: describeResult(result), retryAfterSeconds: result.retryAfterSeconds };
    case 'server_error':
      return { ...none, result: 'error', httpStatus: result.status, responseBody: result.raw, error: describeResult(result) };
    case 'unexpected_response':
      return { ...none, result: 'error', httpStatus: result.status, error: describeResult(result) };
    case 'timeout':
    case 'network_error':
      return { ...none, result: 'unreachable', httpStatus: null, error: describeResult(result) };
  }
}

export function recordRead(
  repos: Repositories,
  read: { profileId: string; kind: 'payin' | 'payout'; reference: string; rowId: number | null; requestBody: object; requestedAt: Date; respondedAt: Date },
  facts: ReadFacts,
): StatusRead {
  return repos.statusReads.record({
    profileId: read.profileId,
    kind: read.kind,
    reference: read.reference,
    payinRowId: read.kind === 'payin' ? read.rowId : null,
    payoutRowId: read.kind === 'payout' ? read.rowId : null,
    requestBody: read.requestBody,
    requestedAt: read.requestedAt,
    httpStatus: facts.httpStatus,
    responseBody: facts.responseBody,
    respondedAt: facts.result === 'unreachable' ? null : read.respondedAt,
    result: facts.result,
    statusCode: facts.statusCode,
    error: facts.error,
  });
}
