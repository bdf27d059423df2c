// Pay-ins (including tokenization pay-ins and token charges), keyed by request_id per profile.
import type { Sql } from '../engine/types';
import { systemClock, type Clock } from '../support';
import {
  TransactionsStore,
  toBaseRecord,
  type BaseRow,
  type CreateAnswer,
  type RequestFacts,
  type StatusColumns,
  type TransactionRecord,
} from './transactions';

export type PayinKind = 'payin' | 'tokenization' | 'token_charge';

export interface PayinRecord extends TransactionRecord {
  kind: PayinKind;
  requestId: string;
  payinId: string | null;
  redirectUrl: string | null;
}

export interface PayinRequest extends RequestFacts {
  kind: PayinKind;
  requestId: string;
}

interface PayinRow extends BaseRow {
  kind: PayinKind;
  request_id: string;
  payin_id: string | null;
  redirect_url: string | null;
}

export class PayinsRepository extends TransactionsStore<PayinRecord, PayinRow, PayinRequest> {
  constructor(db: Sql, now: Clock = systemClock, statusWritten?: (before: StatusColumns, record: PayinRecord) => Promise<void>) {
    super(db, now, 'payin', statusWritten);
  }

  protected toRecord(r: PayinRow): PayinRecord {
    // Object.assign, not a spread: spreading the 27-field record made V8 build slow objects, and
    // a 20-row e-mail lookup spent ten times its median in its p99 (see docs/performance.md).
    return Object.assign(toBaseRecord(r), { kind: r.kind, requestId: r.request_id, payinId: r.payin_id, redirectUrl: r.redirect_url });
  }

  async recordRequest(request: PayinRequest): Promise<PayinRecord> {
    return this.recordRequestRow(request, request.requestId, { kind: request.kind });
  }

  protected answerColumns(answer: CreateAnswer): Record<string, string | null> {
    return { redirect_url: answer.redirectUrl ?? null };
  }

  /** byReference by its spec name (request_id). */
  async byRequestId(profileId: string, requestId: string): Promise<PayinRecord | undefined> {
    return this.byReference(profileId, requestId);
  }

  /** byGatewayId by its spec name (payin_id). */
  async byPayinId(payinId: string, profileId?: string): Promise<PayinRecord | undefined> {
    return this.byGatewayId(payinId, profileId);
  }
}
