// What one status read answered, classified, and its row in status_reads (the transaction's
// timeline keeps every read, whatever it returned).
import { isJsonObject } from '../../../shared/json';
import type { PayinStatusResponse, PayoutStatusResponse } from '../../../shared/spec/schemas';
import type { CallResult } from '../../gateway/result';
import { describeResult } from '../../gateway/result';
import type { Repositories } from '../../ledger/repositories/index';
import type { StatusRead, StatusReadResult } from '../../ledger/repositories/status-reads';
import { TRANSACTION_KINDS, type TransactionKind } from '../../transaction-kinds';

type Loose = Record<string, unknown>;

export type StatusAnswer = CallResult<PayinStatusResponse | PayoutStatusResponse>;

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

const code = (value: unknown): string | number | null => (typeof value === 'number' || (typeof value === 'string' && value !== '') ? value : null);

/** Classifies a status read's answer. A 400 naming the id in details is the emulator's "no such transaction". */
export function readFacts(result: StatusAnswer, idFields: readonly string[]): ReadFacts {
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
  repos: Pick<Repositories, 'statusReads'>,
  read: { profileId: string; kind: TransactionKind; reference: string; rowId: number | null; requestBody: object; requestedAt: Date; respondedAt: Date | null },
  facts: Pick<ReadFacts, 'result' | 'httpStatus' | 'responseBody' | 'statusCode' | 'error'>,
): Promise<StatusRead> {
  return repos.statusReads.record({
    profileId: read.profileId,
    kind: read.kind,
    reference: read.reference,
    ...TRANSACTION_KINDS[read.kind].rowLinks(read.rowId),
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
