// Pay-ins (including tokenization pay-ins and token charges), keyed by request_id per profile.
import type { Ledger } from '../connection';
import { systemClock, type Clock } from '../support';
import {
  TransactionsStore,
  toBaseRecord,
  type BaseRow,
  type CreateAnswer,
  type RequestFacts,
  type StatusApplied,
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

export interface PayinCreateAnswer extends Omit<CreateAnswer, 'gatewayId'> {
  payinId?: string | null;
  redirectUrl?: string | null;
}

interface PayinRow extends BaseRow {
  kind: PayinKind;
  request_id: string;
  payin_id: string | null;
  redirect_url: string | null;
}

export class PayinsRepository extends TransactionsStore<PayinRecord, PayinRow> {
  constructor(db: Ledger, now: Clock = systemClock) {
    super(db, now, { table: 'payins', kind: 'payin', reference: 'request_id', gatewayId: 'payin_id' });
  }

  protected toRecord(r: PayinRow): PayinRecord {
    // Object.assign, not a spread: spreading the 27-field record made V8 build slow objects, and
    // a 20-row e-mail lookup spent ten times its median in its p99 (see docs/performance.md).
    return Object.assign(toBaseRecord(r), { kind: r.kind, requestId: r.request_id, payinId: r.payin_id, redirectUrl: r.redirect_url });
  }

  /** The row of a pay-in about to be sent (status null until the gateway answers). */
  recordRequest(request: PayinRequest): PayinRecord {
    return this.recordRequestRow(request, request.requestId, { kind: request.kind });
  }

  applyCreateAnswer(id: number, answer: PayinCreateAnswer): StatusApplied<PayinRecord> {
    const { payinId, redirectUrl, ...rest } = answer;
    return this.applyCreateAnswerRow(id, { ...rest, gatewayId: payinId }, { redirect_url: redirectUrl ?? null });
  }

  /** recordRequest and applyCreateAnswer in one transaction. */
  upsertFromCreate(request: PayinRequest, answer: PayinCreateAnswer): PayinRecord {
    return this.db.transaction(() => this.applyCreateAnswer(this.recordRequest(request).id, answer).record)();
  }

  byRequestId(profileId: string, requestId: string): PayinRecord | undefined {
    const row = this.sql('SELECT * FROM payins WHERE request_id = ? AND profile_id = ?').get(requestId, profileId) as PayinRow | undefined;
    return row && this.toRecord(row);
  }

  byPayinId(payinId: string, profileId?: string): PayinRecord | undefined {
    const row = (
      profileId === undefined
        ? this.sql('SELECT * FROM payins WHERE payin_id = ? ORDER BY id LIMIT 1').get(payinId)
        : this.sql('SELECT * FROM payins WHERE payin_id = ? AND profile_id = ?').get(payinId, profileId)
    ) as PayinRow | undefined;
    return row && this.toRecord(row);
  }
}
