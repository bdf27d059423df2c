// Gateway answers → ledger facts, through the one state machine of a transaction's status
// (services/status-change.ts): the repositories read and write the status columns, this decides
// them. A final status never regresses; a contradicting final one is kept as a conflict. Status
// reads are applied by the verification's StatusReader, the one path for every read.
import type { ErrorResponse } from '../../../shared/spec/schemas';
import type { Repositories } from '../../ledger/repositories/index';
import type { BaseRow, CreateAnswer, RequestFacts, TransactionRecord, TransactionsStore } from '../../ledger/repositories/transactions';
import { TRANSACTION_KINDS, type TransactionKind } from '../../transaction-kinds';
import { statusChange, statusKept, type StatusChange, type StatusUpdate } from '../status-change';

type Loose = Record<string, unknown>;

/** What a pay-in's or payout's store offers for a change of status (byId names its record type). */
type Store<T extends TransactionRecord> = Pick<TransactionsStore<T, BaseRow, RequestFacts>, 'kind' | 'byId' | 'changeStatus' | 'recordCreateAnswer'>;

/** What a status change did, with the record as written. */
export type StatusApplied<T> = Omit<StatusChange, 'next'> & { record: T };

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const code = (value: unknown): string | number | null => (typeof value === 'number' || (typeof value === 'string' && value !== '') ? value : null);

const applied = <T>({ outcome, claim, record }: StatusChange & { record: T }): StatusApplied<T> => ({ outcome, claim, record });

/** Applies a status from a create answer, a notification or a status read, forward only (statusChange). */
export async function applyStatus<T extends TransactionRecord>(store: Store<T>, id: number, update: StatusUpdate): Promise<StatusApplied<T>> {
  return applied(await store.changeStatus(id, (held, at) => statusChange(store.kind, held, update, at)));
}

/** Records a create answer (or a status read's facts) on its row: its ids and times, then its status if it has one. */
export async function applyCreateAnswer<T extends TransactionRecord>(store: Store<T>, id: number, answer: CreateAnswer): Promise<StatusApplied<T>> {
  return applied(await store.recordCreateAnswer(id, answer, createDecision(store.kind, answer)));
}

/** The row of a request and its create answer, recorded in one transaction. */
export async function upsertFromCreate<T extends TransactionRecord, R extends RequestFacts>(store: Pick<TransactionsStore<T, BaseRow, R>, 'kind' | 'byId' | 'recordAnswered'>, request: R, answer: CreateAnswer): Promise<T> {
  return (await store.recordAnswered(request, answer, createDecision(store.kind, answer))).record;
}

function createDecision(kind: TransactionKind, answer: CreateAnswer) {
  const { statusCode } = answer;
  return (held: StatusChange['next'], at: string): StatusChange =>
    statusCode === undefined || statusCode === null ? statusKept(held) : statusChange(kind, held, { statusCode, reasonCode: answer.reasonCode ?? null, source: 'create' }, at);
}

/** A create answer's body (2.2, a payout's) on its row. */
export async function applyCreateBody(repos: Pick<Repositories, 'payins' | 'payouts'>, kind: TransactionKind, rowId: number, body: Loose): Promise<void> {
  const { gatewayIdField } = TRANSACTION_KINDS[kind];
  await applyCreateAnswer<TransactionRecord>(TRANSACTION_KINDS[kind].store(repos), rowId, {
    gatewayId: text(body[gatewayIdField]),
    redirectUrl: text(body.redirect_url),
    statusCode: code(body.status_code),
    reasonCode: text(body.reason_code),
    createdAt: text(body.created_at),
  });
}

/** A refused create call carries the refusal's code on the row; one without a code (a bare 413) changes nothing. */
export async function applyRefusal(repos: Pick<Repositories, 'payins' | 'payouts'>, kind: TransactionKind, rowId: number, body: ErrorResponse): Promise<void> {
  const statusCode = code(body.status_code);
  if (statusCode === null) return;
  await applyCreateAnswer<TransactionRecord>(TRANSACTION_KINDS[kind].store(repos), rowId, { statusCode, reasonCode: text(body.reason_code) });
}
